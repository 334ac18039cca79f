// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title Factory and Child — CREATE, CREATE2 and SELFDESTRUCT on the tracenode demo chain.
/// @notice Child layout: slot 0 tag, slot 1 note. `factory` is immutable (in the code, not in storage).
contract Child {
    address public immutable factory;
    uint256 public tag; // slot 0
    uint256 public note; // slot 1

    event Poked(uint256 note);

    constructor(uint256 tag_) payable {
        factory = msg.sender;
        tag = tag_;
    }

    receive() external payable {}

    function poke(uint256 note_) external {
        note = note_;
        emit Poked(note_);
    }

    /// Demo contract: anyone may destroy it. Before Cancun this deletes the account; from Cancun on (EIP-6780)
    /// only the balance moves, unless the contract was created in the same transaction.
    function kill(address payable beneficiary) external {
        selfdestruct(beneficiary);
    }
}

contract Factory {
    event Deployed(address indexed child, bool indexed viaCreate2, bytes32 salt, uint256 tag);

    function create(uint256 tag) external payable returns (address child) {
        child = address(new Child{value: msg.value}(tag));
        emit Deployed(child, false, bytes32(0), tag);
    }

    function create2(bytes32 salt, uint256 tag) external payable returns (address child) {
        child = address(new Child{salt: salt, value: msg.value}(tag));
        emit Deployed(child, true, salt, tag);
    }

    /// CREATE and SELFDESTRUCT in the same transaction: the account is deleted even under EIP-6780.
    function createAndDestroy(uint256 tag, address payable beneficiary) external payable returns (address child) {
        Child c = new Child{value: msg.value}(tag);
        child = address(c);
        emit Deployed(child, false, bytes32(0), tag);
        c.kill(beneficiary);
    }

    function predict(bytes32 salt, uint256 tag) external view returns (address) {
        bytes32 initHash = keccak256(abi.encodePacked(type(Child).creationCode, abi.encode(tag)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, initHash)))));
    }
}
