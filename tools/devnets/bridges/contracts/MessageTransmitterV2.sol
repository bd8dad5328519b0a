// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import { ECDSA } from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import { CctpMessageV2, addressToBytes32, bytes32ToAddress } from "./CctpMessageV2.sol";

/// What MessageTransmitterV2 calls on the message's recipient (TokenMessengerV2 for burns).
interface IMessageHandlerV2 {
    function handleReceiveFinalizedMessage(uint32 remoteDomain, bytes32 sender, uint32 finalityThresholdExecuted, bytes calldata messageBody) external returns (bool);
    function handleReceiveUnfinalizedMessage(uint32 remoteDomain, bytes32 sender, uint32 finalityThresholdExecuted, bytes calldata messageBody) external returns (bool);
}

/// Devnet implementation of CCTP v2's MessageTransmitterV2 external interface (selectors, events, message
/// format, attester signatures, nonce replay protection). Written for Payrail; not Circle's code.
/// Pausing, rescue and two-step ownership of the real contract are not modelled.
contract MessageTransmitterV2 {
    using CctpMessageV2 for bytes;

    uint32 internal constant FINALITY_THRESHOLD_FINALIZED = 2000;
    uint256 internal constant SIGNATURE_LENGTH = 65;
    uint256 public constant NONCE_USED = 1;

    uint32 public immutable localDomain;
    uint32 public immutable version;

    address public owner;
    address public attesterManager;
    uint256 public signatureThreshold;
    uint256 public maxMessageBodySize;
    mapping(bytes32 => uint256) public usedNonces;
    address[] private enabledAttesters;
    mapping(address => bool) public isEnabledAttester;

    event MessageSent(bytes message);
    event MessageReceived(
        address indexed caller,
        uint32 sourceDomain,
        bytes32 indexed nonce,
        bytes32 sender,
        uint32 indexed finalityThresholdExecuted,
        bytes messageBody
    );
    event AttesterEnabled(address indexed attester);
    event AttesterDisabled(address indexed attester);
    event SignatureThresholdUpdated(uint256 oldSignatureThreshold, uint256 newSignatureThreshold);
    event MaxMessageBodySizeUpdated(uint256 newMaxMessageBodySize);

    constructor(uint32 localDomain_, uint32 version_) {
        localDomain = localDomain_;
        version = version_;
    }

    /// Same signature as the real proxy initializer; pauser and rescuer roles are accepted but not modelled.
    function initialize(
        address owner_,
        address,
        address,
        address attesterManager_,
        address[] calldata attesters_,
        uint256 signatureThreshold_,
        uint256 maxMessageBodySize_
    ) external {
        require(owner == address(0), "Contract already initialized");
        require(owner_ != address(0) && attesterManager_ != address(0), "Invalid role");
        owner = owner_;
        attesterManager = attesterManager_;
        for (uint256 i = 0; i < attesters_.length; i++) _enableAttester(attesters_[i]);
        _setSignatureThreshold(signatureThreshold_);
        maxMessageBodySize = maxMessageBodySize_;
        emit MaxMessageBodySizeUpdated(maxMessageBodySize_);
    }

    modifier onlyAttesterManager() {
        require(msg.sender == attesterManager, "Caller not attester manager");
        _;
    }

    function sendMessage(
        uint32 destinationDomain,
        bytes32 recipient,
        bytes32 destinationCaller,
        uint32 minFinalityThreshold,
        bytes calldata messageBody
    ) external {
        require(destinationDomain != localDomain, "Domain is local domain");
        require(messageBody.length <= maxMessageBodySize, "Message body exceeds max size");
        require(recipient != bytes32(0), "Recipient must be nonzero");
        emit MessageSent(CctpMessageV2.format(
            version, localDomain, destinationDomain, addressToBytes32(msg.sender), recipient, destinationCaller,
            minFinalityThreshold, messageBody
        ));
    }

    function receiveMessage(bytes calldata message, bytes calldata attestation) external returns (bool success) {
        _verifyAttestationSignatures(message, attestation);

        require(message.length >= CctpMessageV2.BODY_INDEX, "Invalid message: too short");
        require(message.destinationDomain() == localDomain, "Invalid destination domain");
        require(message.version() == version, "Invalid message version");
        bytes32 destinationCaller = message.destinationCaller();
        require(destinationCaller == bytes32(0) || destinationCaller == addressToBytes32(msg.sender), "Invalid caller for message");

        bytes32 nonce = message.nonce();
        require(usedNonces[nonce] == 0, "Nonce already used");
        usedNonces[nonce] = NONCE_USED;

        uint32 sourceDomain = message.sourceDomain();
        bytes32 sender = message.sender();
        uint32 finalityThresholdExecuted = message.finalityThresholdExecuted();
        bytes calldata messageBody = message.body();
        IMessageHandlerV2 handler = IMessageHandlerV2(bytes32ToAddress(message.recipient()));
        bool handled = finalityThresholdExecuted < FINALITY_THRESHOLD_FINALIZED
            ? handler.handleReceiveUnfinalizedMessage(sourceDomain, sender, finalityThresholdExecuted, messageBody)
            : handler.handleReceiveFinalizedMessage(sourceDomain, sender, finalityThresholdExecuted, messageBody);
        require(handled, "handleReceiveMessage() failed");

        emit MessageReceived(msg.sender, sourceDomain, nonce, sender, finalityThresholdExecuted, messageBody);
        return true;
    }

    function enableAttester(address newAttester) external onlyAttesterManager {
        _enableAttester(newAttester);
    }

    function disableAttester(address attester) external onlyAttesterManager {
        require(enabledAttesters.length > 1, "Too few enabled attesters");
        require(enabledAttesters.length > signatureThreshold, "Signature threshold is too low");
        require(isEnabledAttester[attester], "Attester already disabled");
        for (uint256 i = 0; i < enabledAttesters.length; i++) {
            if (enabledAttesters[i] == attester) {
                enabledAttesters[i] = enabledAttesters[enabledAttesters.length - 1];
                enabledAttesters.pop();
                break;
            }
        }
        isEnabledAttester[attester] = false;
        emit AttesterDisabled(attester);
    }

    function setSignatureThreshold(uint256 newSignatureThreshold) external onlyAttesterManager {
        _setSignatureThreshold(newSignatureThreshold);
    }

    function getNumEnabledAttesters() external view returns (uint256) {
        return enabledAttesters.length;
    }

    function getEnabledAttester(uint256 index) external view returns (address) {
        return enabledAttesters[index];
    }

    function _enableAttester(address attester) private {
        require(attester != address(0), "New attester must be nonzero");
        require(!isEnabledAttester[attester], "Attester already enabled");
        enabledAttesters.push(attester);
        isEnabledAttester[attester] = true;
        emit AttesterEnabled(attester);
    }

    function _setSignatureThreshold(uint256 newSignatureThreshold) private {
        require(newSignatureThreshold != 0, "Invalid signature threshold");
        require(newSignatureThreshold <= enabledAttesters.length, "New signature threshold too high");
        emit SignatureThresholdUpdated(signatureThreshold, newSignatureThreshold);
        signatureThreshold = newSignatureThreshold;
    }

    /// `signatureThreshold` 65-byte signatures over keccak256(message), by distinct enabled attesters in increasing
    /// address order (which also rules out one attester signing twice).
    function _verifyAttestationSignatures(bytes calldata message, bytes calldata attestation) private view {
        require(attestation.length == SIGNATURE_LENGTH * signatureThreshold, "Invalid attestation length");
        bytes32 digest = keccak256(message);
        address previous = address(0);
        for (uint256 i = 0; i < signatureThreshold; i++) {
            address signer = ECDSA.recover(digest, attestation[i * SIGNATURE_LENGTH:(i + 1) * SIGNATURE_LENGTH]);
            require(isEnabledAttester[signer], "Invalid signature: not attester");
            require(signer > previous, "Invalid signature order or dupe");
            previous = signer;
        }
    }
}
