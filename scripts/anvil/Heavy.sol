// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title Heavy — gas sinks for benchmarks. `work` is a pure loop for eth_call; `churn` writes many
///        slots (slot 0 rounds; slot keccak(pad32(i) . pad32(1)) = cells[i]), always non-zero.
contract Heavy {
    uint256 public rounds = 1;
    mapping(uint256 => uint256) public cells;

    event Churned(uint256 indexed round, uint256 from, uint256 count);

    /// n rounds of h = keccak256(h . i), in scratch memory (no memory growth): ~100 gas a round.
    function work(uint256 n) external pure returns (bytes32 h) {
        assembly {
            for { let i := 0 } lt(i, n) { i := add(i, 1) } {
                mstore(0, h)
                mstore(32, i)
                h := keccak256(0, 64)
            }
        }
    }

    function churn(uint256 from, uint256 count) external {
        uint256 r = rounds + 1;
        for (uint256 i = from; i < from + count; i++) cells[i] = r * 1_000_003 + i;
        rounds = r;
        emit Churned(r, from, count);
    }

    function fail(uint256 n) external pure returns (bytes32) {
        revert(n == 0 ? "heavy: zero" : "heavy: no");
    }
}
