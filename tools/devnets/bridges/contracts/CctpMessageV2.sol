// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// CCTP v2 message layout (Circle's published format), written for the devnet:
/// version | sourceDomain | destinationDomain | nonce | sender | recipient | destinationCaller |
/// minFinalityThreshold | finalityThresholdExecuted | messageBody.
/// The source chain leaves nonce and finalityThresholdExecuted empty; the attestation service fills them in.
library CctpMessageV2 {
    uint256 internal constant BODY_INDEX = 148;

    function format(
        uint32 version,
        uint32 sourceDomain,
        uint32 destinationDomain,
        bytes32 sender,
        bytes32 recipient,
        bytes32 destinationCaller,
        uint32 minFinalityThreshold,
        bytes calldata messageBody
    ) internal pure returns (bytes memory) {
        return abi.encodePacked(
            version, sourceDomain, destinationDomain, bytes32(0), sender, recipient, destinationCaller,
            minFinalityThreshold, uint32(0), messageBody
        );
    }

    function version(bytes calldata m) internal pure returns (uint32) { return uint32(bytes4(m[0:4])); }
    function sourceDomain(bytes calldata m) internal pure returns (uint32) { return uint32(bytes4(m[4:8])); }
    function destinationDomain(bytes calldata m) internal pure returns (uint32) { return uint32(bytes4(m[8:12])); }
    function nonce(bytes calldata m) internal pure returns (bytes32) { return bytes32(m[12:44]); }
    function sender(bytes calldata m) internal pure returns (bytes32) { return bytes32(m[44:76]); }
    function recipient(bytes calldata m) internal pure returns (bytes32) { return bytes32(m[76:108]); }
    function destinationCaller(bytes calldata m) internal pure returns (bytes32) { return bytes32(m[108:140]); }
    function finalityThresholdExecuted(bytes calldata m) internal pure returns (uint32) { return uint32(bytes4(m[144:148])); }
    function body(bytes calldata m) internal pure returns (bytes calldata) { return m[BODY_INDEX:]; }
}

/// CCTP v2 burn message body: version | burnToken | mintRecipient | amount | messageSender | maxFee |
/// feeExecuted | expirationBlock | hookData. feeExecuted and expirationBlock are filled in by the attester.
library CctpBurnMessageV2 {
    uint256 internal constant HOOK_DATA_INDEX = 228;

    function format(
        uint32 version,
        bytes32 burnToken,
        bytes32 mintRecipient,
        uint256 amount,
        bytes32 messageSender,
        uint256 maxFee,
        bytes calldata hookData
    ) internal pure returns (bytes memory) {
        // Two packed halves keep the encoder within the EVM's stack limit.
        return bytes.concat(
            abi.encodePacked(version, burnToken, mintRecipient, amount),
            abi.encodePacked(messageSender, maxFee, uint256(0), uint256(0), hookData)
        );
    }

    function version(bytes calldata b) internal pure returns (uint32) { return uint32(bytes4(b[0:4])); }
    function burnToken(bytes calldata b) internal pure returns (bytes32) { return bytes32(b[4:36]); }
    function mintRecipient(bytes calldata b) internal pure returns (bytes32) { return bytes32(b[36:68]); }
    function amount(bytes calldata b) internal pure returns (uint256) { return uint256(bytes32(b[68:100])); }
    function maxFee(bytes calldata b) internal pure returns (uint256) { return uint256(bytes32(b[132:164])); }
    function feeExecuted(bytes calldata b) internal pure returns (uint256) { return uint256(bytes32(b[164:196])); }
    function expirationBlock(bytes calldata b) internal pure returns (uint256) { return uint256(bytes32(b[196:228])); }
}

function addressToBytes32(address a) pure returns (bytes32) {
    return bytes32(uint256(uint160(a)));
}

function bytes32ToAddress(bytes32 b) pure returns (address) {
    require(uint256(b) >> 160 == 0, "Invalid address");
    return address(uint160(uint256(b)));
}
