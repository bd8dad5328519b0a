// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import { CctpBurnMessageV2, addressToBytes32, bytes32ToAddress } from "./CctpMessageV2.sol";
import { TokenMinterV2 } from "./TokenMinterV2.sol";

interface IMessageTransmitterV2 {
    function sendMessage(uint32 destinationDomain, bytes32 recipient, bytes32 destinationCaller, uint32 minFinalityThreshold, bytes calldata messageBody) external;
}

interface IERC20Like {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// Devnet implementation of CCTP v2's TokenMessengerV2 external interface: depositForBurn(WithHook) on the
/// source, handleReceive(Un)FinalizedMessage from MessageTransmitterV2 on the destination. Written for Payrail;
/// not Circle's code. Rescue and two-step ownership of the real contract are not modelled.
contract TokenMessengerV2 {
    using CctpBurnMessageV2 for bytes;

    /// depositForBurn's arguments, bundled to stay within the EVM's stack limit.
    struct Deposit {
        uint256 amount;
        uint32 destinationDomain;
        bytes32 mintRecipient;
        address burnToken;
        bytes32 destinationCaller;
        uint256 maxFee;
        uint32 minFinalityThreshold;
    }

    /// The lowest finality the real TokenMessengerV2 accepts for unfinalized (fast) messages.
    uint32 internal constant TOKEN_MESSENGER_MIN_FINALITY_THRESHOLD = 500;

    address public immutable localMessageTransmitter;
    uint32 public immutable messageBodyVersion;

    address public owner;
    address public feeRecipient;
    address public denylister;
    TokenMinterV2 public localMinter;
    mapping(uint32 => bytes32) public remoteTokenMessengers;
    mapping(address => bool) public isDenylisted;

    event DepositForBurn(
        address indexed burnToken,
        uint256 amount,
        address indexed depositor,
        bytes32 mintRecipient,
        uint32 destinationDomain,
        bytes32 destinationTokenMessenger,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 indexed minFinalityThreshold,
        bytes hookData
    );
    event MintAndWithdraw(address indexed mintRecipient, uint256 amount, address indexed mintToken, uint256 feeCollected);
    event RemoteTokenMessengerAdded(uint32 domain, bytes32 tokenMessenger);
    event LocalMinterAdded(address localMinter);
    event FeeRecipientSet(address feeRecipient);
    event Denylisted(address indexed account);
    event UnDenylisted(address indexed account);

    constructor(address messageTransmitter_, uint32 messageBodyVersion_) {
        localMessageTransmitter = messageTransmitter_;
        messageBodyVersion = messageBodyVersion_;
    }

    /// Same signature as the real proxy initializer; the rescuer role is accepted but not modelled.
    function initialize(
        address owner_,
        address,
        address feeRecipient_,
        address denylister_,
        address tokenMinter_,
        uint32[] calldata remoteDomains_,
        bytes32[] calldata remoteTokenMessengers_
    ) external {
        require(owner == address(0), "Contract already initialized");
        require(owner_ != address(0) && feeRecipient_ != address(0), "Invalid role");
        require(remoteDomains_.length == remoteTokenMessengers_.length, "Invalid remote domain configuration");
        owner = owner_;
        feeRecipient = feeRecipient_;
        denylister = denylister_;
        localMinter = TokenMinterV2(tokenMinter_);
        emit LocalMinterAdded(tokenMinter_);
        for (uint256 i = 0; i < remoteDomains_.length; i++) _addRemoteTokenMessenger(remoteDomains_[i], remoteTokenMessengers_[i]);
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "Ownable: caller is not the owner");
        _;
    }

    modifier notDenylisted(address account) {
        require(!isDenylisted[account], "Denylistable: account is on denylist");
        _;
    }

    function depositForBurn(
        uint256 amount,
        uint32 destinationDomain,
        bytes32 mintRecipient,
        address burnToken,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 minFinalityThreshold
    ) external {
        _depositForBurn(
            Deposit(amount, destinationDomain, mintRecipient, burnToken, destinationCaller, maxFee, minFinalityThreshold), msg.data[0:0]
        );
    }

    function depositForBurnWithHook(
        uint256 amount,
        uint32 destinationDomain,
        bytes32 mintRecipient,
        address burnToken,
        bytes32 destinationCaller,
        uint256 maxFee,
        uint32 minFinalityThreshold,
        bytes calldata hookData
    ) external {
        require(hookData.length > 0, "Hook data is empty");
        _depositForBurn(
            Deposit(amount, destinationDomain, mintRecipient, burnToken, destinationCaller, maxFee, minFinalityThreshold), hookData
        );
    }

    function handleReceiveFinalizedMessage(uint32 remoteDomain, bytes32 sender, uint32, bytes calldata messageBody)
        external
        returns (bool)
    {
        _handleReceive(remoteDomain, sender, messageBody);
        return true;
    }

    function handleReceiveUnfinalizedMessage(
        uint32 remoteDomain,
        bytes32 sender,
        uint32 finalityThresholdExecuted,
        bytes calldata messageBody
    ) external returns (bool) {
        require(finalityThresholdExecuted >= TOKEN_MESSENGER_MIN_FINALITY_THRESHOLD, "Unsupported finality threshold");
        _handleReceive(remoteDomain, sender, messageBody);
        return true;
    }

    function addRemoteTokenMessenger(uint32 domain, bytes32 tokenMessenger) external onlyOwner {
        _addRemoteTokenMessenger(domain, tokenMessenger);
    }

    function setFeeRecipient(address feeRecipient_) external onlyOwner {
        require(feeRecipient_ != address(0), "Zero address not allowed");
        feeRecipient = feeRecipient_;
        emit FeeRecipientSet(feeRecipient_);
    }

    function denylist(address account) external {
        require(msg.sender == denylister, "Denylistable: caller is not denylister");
        isDenylisted[account] = true;
        emit Denylisted(account);
    }

    function unDenylist(address account) external {
        require(msg.sender == denylister, "Denylistable: caller is not denylister");
        isDenylisted[account] = false;
        emit UnDenylisted(account);
    }

    function _depositForBurn(Deposit memory d, bytes calldata hookData) private notDenylisted(msg.sender) notDenylisted(tx.origin) {
        require(d.amount > 0, "Amount must be nonzero");
        require(d.mintRecipient != bytes32(0), "Mint recipient must be nonzero");
        require(d.maxFee < d.amount, "Max fee must be less than amount");
        bytes32 destinationTokenMessenger = remoteTokenMessengers[d.destinationDomain];
        require(destinationTokenMessenger != bytes32(0), "No TokenMessenger for domain");

        require(IERC20Like(d.burnToken).transferFrom(msg.sender, address(localMinter), d.amount), "Transfer operation failed");
        localMinter.burn(d.burnToken, d.amount);

        IMessageTransmitterV2(localMessageTransmitter).sendMessage(
            d.destinationDomain, destinationTokenMessenger, d.destinationCaller, d.minFinalityThreshold, _burnMessage(d, hookData)
        );
        emit DepositForBurn(
            d.burnToken, d.amount, msg.sender, d.mintRecipient, d.destinationDomain, destinationTokenMessenger, d.destinationCaller,
            d.maxFee, d.minFinalityThreshold, hookData
        );
    }

    function _burnMessage(Deposit memory d, bytes calldata hookData) private view returns (bytes memory) {
        return CctpBurnMessageV2.format(
            messageBodyVersion, addressToBytes32(d.burnToken), d.mintRecipient, d.amount, addressToBytes32(msg.sender), d.maxFee, hookData
        );
    }

    function _handleReceive(uint32 remoteDomain, bytes32 sender, bytes calldata messageBody) private {
        require(msg.sender == localMessageTransmitter, "Invalid message transmitter");
        require(sender != bytes32(0) && remoteTokenMessengers[remoteDomain] == sender, "Remote TokenMessenger unsupported");
        require(messageBody.length >= CctpBurnMessageV2.HOOK_DATA_INDEX, "Invalid burn message");
        require(messageBody.version() == messageBodyVersion, "Invalid message body version");

        uint256 expirationBlock = messageBody.expirationBlock();
        require(expirationBlock == 0 || expirationBlock > block.number, "Message expired and must be re-signed");
        uint256 amount = messageBody.amount();
        uint256 fee = messageBody.feeExecuted();
        require(fee <= messageBody.maxFee(), "Fee equals or exceeds max fee");
        require(fee < amount, "Fee equals or exceeds amount");

        address mintRecipient = bytes32ToAddress(messageBody.mintRecipient());
        address mintToken = localMinter.mint(remoteDomain, messageBody.burnToken(), mintRecipient, feeRecipient, amount - fee, fee);
        emit MintAndWithdraw(mintRecipient, amount - fee, mintToken, fee);
    }

    function _addRemoteTokenMessenger(uint32 domain, bytes32 tokenMessenger) private {
        require(tokenMessenger != bytes32(0), "bytes32(0) not allowed");
        require(remoteTokenMessengers[domain] == bytes32(0), "TokenMessenger already set");
        remoteTokenMessengers[domain] = tokenMessenger;
        emit RemoteTokenMessengerAdded(domain, tokenMessenger);
    }
}
