// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title Child — what Factory deploys; payable constructor, one value slot (slot 0), creator (slot 1).
contract Child {
    uint256 public value;
    address public creator;

    constructor(uint256 v) payable {
        require(v != 0, "zero");
        value = v;
        creator = msg.sender;
    }

    function set(uint256 v) external {
        require(v != 0, "zero");
        value = v;
    }
}

/// @title Factory — CREATE and CREATE2 deployments of Child. Slot 0: children (address[]).
contract Factory {
    address[] public children;

    event Created(address indexed child, bytes32 salt, uint256 value);

    function create(uint256 v) external payable returns (address child) {
        child = address(new Child{value: msg.value}(v));
        children.push(child);
        emit Created(child, bytes32(0), v);
    }

    function create2(bytes32 salt, uint256 v) external payable returns (address child) {
        child = address(new Child{salt: salt, value: msg.value}(v));
        children.push(child);
        emit Created(child, salt, v);
    }

    function predict(bytes32 salt, uint256 v) external view returns (address) {
        bytes32 h = keccak256(
            abi.encodePacked(bytes1(0xff), address(this), salt, keccak256(abi.encodePacked(type(Child).creationCode, abi.encode(v))))
        );
        return address(uint160(uint256(h)));
    }

    function childCount() external view returns (uint256) {
        return children.length;
    }
}

/// @title Doomed — self-destructs in a later transaction than its creation (Cancun: EIP-6780, so only
///        its balance moves to the beneficiary; code and storage stay). Slot 0 owner, slot 1 stash.
contract Doomed {
    address public owner;
    uint256 public stash;

    constructor(address owner_) payable {
        owner = owner_;
        stash = 42;
    }

    function destroy(address payable to) external {
        require(msg.sender == owner, "not owner");
        selfdestruct(to);
    }

    receive() external payable {}
}
