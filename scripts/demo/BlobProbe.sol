// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title BlobProbe — Cancun opcodes: BLOBHASH, BLOBBASEFEE, TSTORE/TLOAD (transient storage), MCOPY.
/// @notice Compiled for evmVersion cancun; deployed after the Cancun fork. A type-3 (blob) transaction calls
///         record(), which stores the transaction's first blob versioned hash in slot 0.
contract BlobProbe {
    bytes32 public lastBlobHash; // slot 0
    uint256 public lastBlobBaseFee; // slot 1
    uint256 public records; // slot 2
    uint256 transient entered;

    event Recorded(bytes32 indexed blobHash, uint256 blobBaseFee, bytes note);

    function record(bytes calldata note) external {
        require(entered == 0, "BlobProbe: reentrant");
        entered = 1;
        bytes memory copy = note; // calldata -> memory
        bytes memory again = abi.encodePacked(copy); // memory -> memory (MCOPY)
        lastBlobHash = blobhash(0);
        lastBlobBaseFee = block.blobbasefee;
        records += 1;
        emit Recorded(lastBlobHash, lastBlobBaseFee, again);
        entered = 0;
    }

    function blobEnv() external view returns (bytes32 firstBlobHash, uint256 blobBaseFee) {
        return (blobhash(0), block.blobbasefee);
    }
}
