// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Doomed} from "./Factory.sol";

/// @title Callee — the leaf of the `traces` scenario's call trees. Slot 0: x, slot 1: deposits.
contract Callee {
    uint256 public x = 1;
    uint256 public deposits = 1;

    event Deposited(address indexed from, uint256 value);
    event Set(address indexed by, uint256 value);

    error Failed(uint256 code);

    constructor() payable {}

    function set(uint256 v) external returns (uint256) {
        require(v != 0, "zero");
        x = v;
        emit Set(msg.sender, v);
        return v;
    }

    function get() external view returns (uint256) {
        return x;
    }

    function fail(uint256 code) external pure {
        revert Failed(code);
    }

    /// Not `pure` (it logs before reverting), so callers reach it with CALL, not STATICCALL.
    function failWithMessage() external {
        emit Set(msg.sender, 0);
        revert("callee says no");
    }

    /// Never returns: runs out of gas.
    function burn() external {
        uint256 i = x;
        while (true) {
            i = uint256(keccak256(abi.encode(i)));
            if (i == 0) break;
        }
        x = i;
    }

    function deposit() external payable {
        deposits += msg.value;
        emit Deposited(msg.sender, msg.value);
    }

    receive() external payable {
        deposits += msg.value;
    }
}

/// @title Relay — issues every kind of call. Its slot 0 (x) mirrors Callee's, so DELEGATECALL and
///        CALLCODE into Callee.set write Relay's own slot 0. Slot 1: hits.
contract Relay {
    uint256 public x = 1;
    uint256 public hits = 1;

    event Hop(uint256 depth, address indexed self, uint256 value);

    function callWithValue(address payable target) external payable {
        Callee(target).deposit{value: msg.value}();
        hits += 1;
    }

    function viaDelegatecall(address lib, uint256 v) external {
        (bool ok, ) = lib.delegatecall(abi.encodeCall(Callee.set, (v)));
        require(ok, "delegatecall failed");
    }

    function viaStaticcall(address target) external returns (uint256 v) {
        (bool ok, bytes memory ret) = target.staticcall(abi.encodeCall(Callee.get, ()));
        require(ok, "staticcall failed");
        v = abi.decode(ret, (uint256));
        hits += 1;
    }

    /// CALLCODE twice: Callee.set(v) without value, then Callee.deposit() with msg.value (both run
    /// on this contract's storage: slot 0 x, slot 1 hits/deposits).
    function viaCallcode(address target, uint256 v) external payable {
        bytes memory setData = abi.encodeCall(Callee.set, (v));
        bytes memory depositData = abi.encodeCall(Callee.deposit, ());
        uint256 value = msg.value;
        bool ok1;
        bool ok2;
        assembly {
            ok1 := callcode(gas(), target, 0, add(setData, 32), mload(setData), 0, 0)
            ok2 := callcode(gas(), target, value, add(depositData, 32), mload(depositData), 0, 0)
        }
        require(ok1 && ok2, "callcode failed");
    }

    function spawn() external payable returns (address) {
        Callee c = new Callee{value: msg.value}();
        hits += 1;
        return address(c);
    }

    function spawn2(bytes32 salt) external payable returns (address) {
        Callee c = new Callee{salt: salt, value: msg.value}();
        hits += 1;
        return address(c);
    }

    /// A revert two frames down, caught here.
    function catchRevert(address target, uint256 code) external {
        try Callee(payable(target)).fail(code) {
            revert("unexpected");
        } catch {
            hits += 1;
        }
        try Callee(payable(target)).failWithMessage() {
            revert("unexpected");
        } catch Error(string memory) {
            hits += 1;
        }
    }

    /// An out-of-gas subcall, caught here.
    function catchOutOfGas(address target) external {
        (bool ok, ) = target.call{gas: 40000}(abi.encodeCall(Callee.burn, ()));
        require(!ok, "unexpected");
        hits += 1;
    }

    /// Recurses through `relays` (each another Relay), forwarding half the value each hop, and ends
    /// with Callee.set(v) on `leaf`: depth = relays.length + 2 frames.
    function chain(address[] calldata relays, address payable leaf, uint256 v) external payable {
        emit Hop(relays.length, address(this), msg.value);
        if (relays.length == 0) {
            Callee(leaf).deposit{value: msg.value}();
            Callee(leaf).set(v);
        } else {
            Relay(payable(relays[0])).chain{value: msg.value / 2}(relays[1:], leaf, v);
        }
        hits += 1;
    }

    /// A call tree whose middle frame reverts after calling further down (the whole subtree is undone).
    function revertInMiddle(address payable middle, address payable leaf) external {
        try Relay(middle).chainThenRevert(leaf) {
            revert("unexpected");
        } catch {
            hits += 1;
        }
    }

    function chainThenRevert(address payable leaf) external {
        Callee(leaf).set(hits + 100);
        revert("middle reverts");
    }

    function alwaysRevert(uint256 code) external pure {
        require(code == 0, "top-level revert");
    }

    function pay(address payable to) external payable {
        (bool ok, ) = to.call{value: msg.value}("");
        require(ok, "pay failed");
    }

    function kill(address payable doomed, address payable to) external {
        Doomed(doomed).destroy(to);
    }

    /// Calls every precompile 0x01..0x0a (0x0a with a bad proof: it fails, caught); with msg.value
    /// >= 9, sends 1 wei along with each of 0x01..0x09.
    function precompiles(bytes calldata data) external payable returns (bytes32 acc) {
        uint256 w = msg.value >= 9 ? 1 : 0;
        bytes memory d = data;
        bytes memory ec = abi.encode(keccak256(d), uint256(28), uint256(keccak256("r")), uint256(keccak256("s")));
        bytes memory bn1 = abi.encode(uint256(1), uint256(2), uint256(1), uint256(2));
        bytes memory bn2 = abi.encode(uint256(1), uint256(2), uint256(2));
        bytes memory mexp = abi.encodePacked(uint256(1), uint256(1), uint256(1), uint8(3), uint8(5), uint8(7));
        bytes memory blake = abi.encodePacked(uint32(12), new bytes(64), new bytes(128), new bytes(16), uint8(1));
        bytes[9] memory inputs = [ec, d, d, d, mexp, bn1, bn2, new bytes(0), blake];
        for (uint256 i = 0; i < 9; i++) {
            (bool ok, bytes memory ret) = address(uint160(i + 1)).call{value: w}(inputs[i]);
            acc = keccak256(abi.encodePacked(acc, ok, ret));
        }
        (bool ok10, ) = address(0x0a).staticcall{gas: 60000}(new bytes(192));
        acc = keccak256(abi.encodePacked(acc, ok10));
        hits += 1;
    }

    receive() external payable {}
}
