// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title Token — a small ERC-20 with Transfer/Approval logs.
/// @notice Storage layout: slot 0 name, slot 1 symbol, slot 2 totalSupply, slot 3 balanceOf[address]
///         (keccak256(pad32(holder) . pad32(3))), slot 4 allowance[owner][spender], slot 5 minter.
///         The generators never move a whole balance or spend a whole allowance (anvil 1.7.1 keeps
///         zero-valued storage leaves); an allowance of type(uint256).max is never decremented.
contract Token {
    string public name;
    string public symbol;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    address public minter;

    uint8 public constant decimals = 18;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint256 supply) {
        name = name_;
        symbol = symbol_;
        minter = msg.sender;
        _mint(msg.sender, supply);
    }

    function mint(address to, uint256 value) external {
        require(msg.sender == minter, "not minter");
        _mint(to, value);
    }

    /// Mints `value` to each of `to` (one transaction that writes many slots).
    function airdrop(address[] calldata to, uint256 value) external {
        require(msg.sender == minter, "not minter");
        for (uint256 i = 0; i < to.length; i++) _mint(to[i], value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        require(value != 0, "zero");
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            require(allowed >= value, "allowance");
            allowance[from][msg.sender] = allowed - value;
        }
        _transfer(from, to, value);
        return true;
    }

    function _mint(address to, uint256 value) internal {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    function _transfer(address from, address to, uint256 value) internal {
        uint256 bal = balanceOf[from];
        require(bal >= value, "balance");
        balanceOf[from] = bal - value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
