// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title StateBox — storage showcase of the tracenode demo chain.
/// @notice Pre-deployed in genesis.json (runtime code + initial storage), so it already has storage at
///         block 0 and is callable from block 1 (Byzantium rules, hence compiled for evmVersion byzantium).
///         Storage layout (what eth_getStorageAt / eth_getProof read):
///           slot 0  counter                       (plain uint256)
///           slot 1  owner                         (plain address)
///           slot 2  balances[address]             keccak256(pad32(key) . pad32(2))
///           slot 3  grid[address][uint256]        keccak256(pad32(key2) . keccak256(pad32(key1) . pad32(3)))
contract StateBox {
    uint256 public counter;
    address public owner;
    mapping(address => uint256) public balances;
    mapping(address => mapping(uint256 => uint256)) public grid;

    event CounterSet(address indexed by, uint256 oldValue, uint256 newValue);
    event BalanceSet(address indexed account, uint256 value);
    event GridSet(address indexed account, uint256 indexed key, uint256 value);

    function setCounter(uint256 value) external {
        emit CounterSet(msg.sender, counter, value);
        counter = value;
    }

    function increment() external returns (uint256) {
        counter += 1;
        return counter;
    }

    function setBalance(address account, uint256 value) external {
        balances[account] = value;
        emit BalanceSet(account, value);
    }

    function setGrid(address account, uint256 key, uint256 value) external {
        grid[account][key] = value;
        emit GridSet(account, key, value);
    }

    function setOwner(address newOwner) external {
        require(msg.sender == owner, "StateBox: caller is not the owner");
        owner = newOwner;
    }
}
