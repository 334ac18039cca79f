// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title Probe — eth_call material: block environment getters and a CPU-heavy pure function.
/// @notice Deployed before the merge, so `env().difficulty` is the PoW difficulty before and PREVRANDAO after.
contract Probe {
    uint256 public pings; // slot 0

    event Pinged(address indexed from, uint256 value, uint256 count);

    receive() external payable {
        pings += 1;
        emit Pinged(msg.sender, msg.value, pings);
    }

    function env()
        external
        view
        returns (
            uint256 number,
            bytes32 parentHash,
            uint256 timestamp,
            address coinbase,
            uint256 difficultyOrPrevRandao,
            uint256 gasLimit,
            uint256 baseFee,
            uint256 chainId,
            uint256 selfBalance,
            address origin,
            uint256 gasPrice
        )
    {
        number = block.number;
        parentHash = blockhash(block.number - 1);
        timestamp = block.timestamp;
        coinbase = block.coinbase;
        difficultyOrPrevRandao = block.difficulty;
        gasLimit = block.gaslimit;
        baseFee = block.basefee;
        chainId = block.chainid;
        selfBalance = address(this).balance;
        origin = tx.origin;
        gasPrice = tx.gasprice;
    }

    function blockHashOf(uint256 n) external view returns (bytes32) {
        return blockhash(n);
    }

    /// Iterated keccak256, for benchmarks (gas grows linearly with `rounds`; see fixtures/demo/README.md).
    function heavy(uint256 rounds) external pure returns (bytes32 h) {
        h = bytes32(rounds);
        for (uint256 i = 0; i < rounds; i++) {
            // keccak256(h . i) in the scratch space: no memory growth, so gas is linear in `rounds`.
            assembly {
                mstore(0x00, h)
                mstore(0x20, i)
                h := keccak256(0x00, 0x40)
            }
        }
    }
}
