// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Token} from "./Token.sol";

/// @title Pair — a small constant-product AMM over two Tokens (0.3% fee). Slot 0 token0, slot 1
///        token1, slot 2 reserve0, slot 3 reserve1, slot 4 swaps. Reserves start large and swaps are
///        small, so no reserve ever reaches zero.
contract Pair {
    Token public token0;
    Token public token1;
    uint256 public reserve0;
    uint256 public reserve1;
    uint256 public swaps;

    event Swap(address indexed sender, bool zeroForOne, uint256 amountIn, uint256 amountOut, address indexed to);
    event Sync(uint256 reserve0, uint256 reserve1);

    constructor(Token t0, Token t1) {
        token0 = t0;
        token1 = t1;
    }

    /// Takes the pair's current token balances as its reserves (after tokens were sent to it).
    function sync() external {
        reserve0 = token0.balanceOf(address(this));
        reserve1 = token1.balanceOf(address(this));
        emit Sync(reserve0, reserve1);
    }

    function quote(bool zeroForOne, uint256 amountIn) public view returns (uint256) {
        (uint256 rIn, uint256 rOut) = zeroForOne ? (reserve0, reserve1) : (reserve1, reserve0);
        uint256 inWithFee = amountIn * 997;
        return (inWithFee * rOut) / (rIn * 1000 + inWithFee);
    }

    function swap(bool zeroForOne, uint256 amountIn, uint256 minOut, address to) external returns (uint256 out) {
        require(amountIn != 0, "zero in");
        out = quote(zeroForOne, amountIn);
        require(out >= minOut, "slippage");
        (Token tIn, Token tOut) = zeroForOne ? (token0, token1) : (token1, token0);
        tIn.transferFrom(msg.sender, address(this), amountIn);
        tOut.transfer(to, out);
        if (zeroForOne) {
            reserve0 += amountIn;
            reserve1 -= out;
        } else {
            reserve1 += amountIn;
            reserve0 -= out;
        }
        swaps += 1;
        emit Swap(msg.sender, zeroForOne, amountIn, out, to);
    }
}
