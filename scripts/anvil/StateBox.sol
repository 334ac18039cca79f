// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title StateBox — storage that changes over many blocks (anvil `state` scenario).
/// @notice anvil 1.7.1 leaves a zero leaf in the storage trie when a slot is set to zero, so every
///         writer here refuses zero and nothing ever shrinks (no pop, no delete, `note` only grows).
///         Storage layout:
///           slot 0  plainA                  uint256
///           slot 1  plainB                  uint256
///           slot 2  owner (20 bytes) | packedCount (uint64, bytes 20..27)   packed
///           slot 3  tag                     bytes32
///           slot 4  counter                 uint256, overwritten many times
///           slot 5  credits[address]        keccak256(pad32(who) . pad32(5))
///           slot 6  grid[address][uint256]  keccak256(pad32(k) . keccak256(pad32(who) . pad32(6)))
///           slot 7  items (uint256[])       length at 7, item i at keccak256(pad32(7)) + i
///           slot 8  note (string)           short: data|len*2 in slot 8; long: len*2+1, data at keccak256(pad32(8))
contract StateBox {
    uint256 public plainA;
    uint256 public plainB;
    address public owner;
    uint64 public packedCount;
    bytes32 public tag;
    uint256 public counter;
    mapping(address => uint256) public credits;
    mapping(address => mapping(uint256 => uint256)) public grid;
    uint256[] public items;
    string public note;

    event Bumped(address indexed by, uint256 counter);
    event Credited(address indexed who, uint256 value);
    event GridSet(address indexed who, uint256 indexed key, uint256 value);
    event Noted(address indexed by, string note);

    constructor(uint256 a) {
        require(a != 0, "zero");
        plainA = a;
        owner = msg.sender;
        packedCount = 1;
    }

    function setPlain(uint256 a, uint256 b, bytes32 t) external {
        require(a != 0 && b != 0 && t != bytes32(0), "zero");
        plainA = a;
        plainB = b;
        tag = t;
    }

    /// Overwrites `counter` `times` times in one transaction, and the packed slot once.
    function bump(uint256 times) external {
        for (uint256 i = 0; i < times; i++) counter += 1;
        packedCount += 1;
        emit Bumped(msg.sender, counter);
    }

    function credit(address who, uint256 value) external {
        require(value != 0, "zero");
        credits[who] = value;
        emit Credited(who, value);
    }

    function setGrid(address who, uint256 key, uint256 value) external {
        require(value != 0, "zero");
        grid[who][key] = value;
        emit GridSet(who, key, value);
    }

    function push(uint256 value) external {
        require(value != 0, "zero");
        items.push(value);
    }

    /// Only ever called with strings of growing length (a shorter long string would clear slots).
    function setNote(string calldata s) external {
        require(bytes(s).length >= bytes(note).length, "shrink");
        note = s;
        emit Noted(msg.sender, s);
    }

    function itemCount() external view returns (uint256) {
        return items.length;
    }
}
