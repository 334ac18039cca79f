// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title Nft — a minimal ERC-721 (mint, transferFrom by the owner; no approvals, so nothing is ever
///        cleared to zero). Slot 0 nextId, slot 1 ownerOf[id], slot 2 balanceOf[address].
///        The bench generator only moves a token out of a wallet that holds at least two.
contract Nft {
    uint256 public nextId = 1;
    mapping(uint256 => address) public ownerOf;
    mapping(address => uint256) public balanceOf;

    string public constant name = "Bench Cats";
    string public constant symbol = "BCAT";

    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);

    function mint(address to) external returns (uint256 id) {
        require(to != address(0), "zero address");
        id = nextId++;
        ownerOf[id] = to;
        balanceOf[to] += 1;
        emit Transfer(address(0), to, id);
    }

    function transferFrom(address from, address to, uint256 id) external {
        require(ownerOf[id] == from, "wrong owner");
        require(msg.sender == from, "not owner");
        require(to != address(0), "zero address");
        ownerOf[id] = to;
        balanceOf[from] -= 1;
        balanceOf[to] += 1;
        emit Transfer(from, to, id);
    }
}
