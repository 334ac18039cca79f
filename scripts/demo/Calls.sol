// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title Call-kind showcase of the tracenode demo chain (trace_transaction material).
/// @notice Logic is the code that Caller runs via DELEGATECALL and CALLCODE; both share the layout of their
///         first two slots, so those frames write into Caller's storage. Thrower fails in every way a frame
///         can fail. Caller exercises CALL (with value), DELEGATECALL, STATICCALL, CALLCODE, nested calls,
///         precompiles (with and without value) and catches failing subcalls.

interface IStateBox {
    function counter() external view returns (uint256);
    function increment() external returns (uint256);
}

contract Logic {
    uint256 public value; // slot 0
    address public lastSender; // slot 1

    event Stored(address indexed self, address indexed sender, uint256 value);

    function store(uint256 v) external payable {
        value = v;
        lastSender = msg.sender;
        emit Stored(address(this), msg.sender, v);
    }
}

contract Thrower {
    error Unauthorized(address caller, uint256 code);

    uint256 public attempts; // slot 0
    mapping(uint256 => uint256) public burned; // slot 1

    function failWithReason() external {
        attempts += 1;
        revert("Thrower: failed with a reason string");
    }

    function failWithCustomError() external {
        attempts += 1;
        revert Unauthorized(msg.sender, 42);
    }

    /// divisor 0 -> Panic(0x12) (division by zero)
    function failWithPanic(uint256 divisor) external returns (uint256) {
        attempts += 1;
        return 1000 / divisor;
    }

    /// x 0 -> Panic(0x01) (assert)
    function failWithAssert(uint256 x) external returns (uint256) {
        attempts += 1;
        assert(x != 0);
        return x;
    }

    /// Never returns: fills fresh storage slots (22,100 gas each) until the frame runs out of gas.
    function burn() external {
        for (uint256 i = 1; ; i++) {
            burned[i] = i;
        }
    }
}

contract Caller {
    uint256 public value; // slot 0 (written by Logic.store via DELEGATECALL / CALLCODE)
    address public lastSender; // slot 1
    uint256 public caught; // slot 2

    event Forwarded(address indexed to, uint256 value);
    event SubcallFailed(string what, bytes returndata);
    event Depth(uint256 depth, uint256 counter);
    event Digest(bytes32 sha256Digest, bytes20 ripemd160Digest, bytes echoed);

    receive() external payable {}

    /// CALL with value.
    function forward(address payable to) external payable {
        (bool ok, ) = to.call{value: msg.value}("");
        require(ok, "Caller: forward failed");
        emit Forwarded(to, msg.value);
    }

    /// DELEGATECALL: Logic.store runs on Caller's storage; msg.sender stays the transaction sender.
    function viaDelegatecall(address logic, uint256 v) external {
        (bool ok, ) = logic.delegatecall(abi.encodeCall(Logic.store, (v)));
        require(ok, "Caller: delegatecall failed");
    }

    /// STATICCALL (a view call made from a transaction).
    function viaStaticcall(address box) external returns (uint256 c) {
        c = IStateBox(box).counter();
        value = c;
    }

    /// CALLCODE: like DELEGATECALL, but msg.sender is Caller itself and value is passed explicitly.
    function viaCallcode(address logic, uint256 v) external payable {
        bytes memory data = abi.encodeCall(Logic.store, (v));
        uint256 amount = msg.value;
        bool ok;
        assembly {
            ok := callcode(gas(), logic, amount, add(data, 0x20), mload(data), 0, 0)
        }
        require(ok, "Caller: callcode failed");
    }

    /// All four call kinds in one transaction: CALL with value, DELEGATECALL, STATICCALL, CALLCODE.
    function allKinds(address logic, address box, address payable to, uint256 v) external payable {
        (bool ok, ) = to.call{value: msg.value}("");
        require(ok, "Caller: call failed");
        (ok, ) = logic.delegatecall(abi.encodeCall(Logic.store, (v)));
        require(ok, "Caller: delegatecall failed");
        uint256 c = IStateBox(box).counter();
        bytes memory data = abi.encodeCall(Logic.store, (v + c));
        assembly {
            ok := callcode(gas(), logic, 0, add(data, 0x20), mload(data), 0, 0)
        }
        require(ok, "Caller: callcode failed");
    }

    /// Nested calls: deep(n) calls this.deep(n-1) ... deep(0) calls StateBox.increment (depth n+2 frames).
    function deep(uint256 depth, address box) external returns (uint256 c) {
        if (depth == 0) {
            c = IStateBox(box).increment();
        } else {
            c = this.deep(depth - 1, box);
        }
        emit Depth(depth, c);
    }

    /// Calls Thrower.burn with a 40,000 gas stipend; the subcall runs out of gas, this frame continues.
    function tryOutOfGas(Thrower t) external returns (bool ok) {
        bytes memory ret;
        (ok, ret) = address(t).call{gas: 40000}(abi.encodeCall(Thrower.burn, ()));
        if (!ok) {
            caught += 1;
            emit SubcallFailed("out of gas", ret);
        }
    }

    /// Every failure kind in a subcall, each caught: Error(string), custom error, Panic, out of gas.
    function tryAll(Thrower t) external returns (uint256 n) {
        try t.failWithReason() {} catch Error(string memory reason) {
            n++;
            emit SubcallFailed("reason", bytes(reason));
        }
        try t.failWithCustomError() {} catch (bytes memory data) {
            n++;
            emit SubcallFailed("custom error", data);
        }
        try t.failWithPanic(0) returns (uint256) {} catch Panic(uint256 code) {
            n++;
            emit SubcallFailed("panic", abi.encode(code));
        }
        (bool ok, bytes memory ret) = address(t).call{gas: 30000}(abi.encodeCall(Thrower.burn, ()));
        if (!ok) {
            n++;
            emit SubcallFailed("out of gas", ret);
        }
        caught += n;
    }

    /// Precompiles: sha256 (0x02) and ripemd160 (0x03) by STATICCALL without value, identity (0x04) by CALL
    /// carrying msg.value.
    function precompiles(bytes calldata data) external payable returns (bytes32 digest) {
        digest = sha256(data);
        bytes20 r = ripemd160(data);
        (bool ok, bytes memory echoed) = address(4).call{value: msg.value}(data);
        require(ok, "Caller: identity failed");
        emit Digest(digest, r, echoed);
    }
}
