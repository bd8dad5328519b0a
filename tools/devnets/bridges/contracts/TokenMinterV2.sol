// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// The mint/burn rights the devnet's TestStablecoin grants to its `bridge` address.
interface IDevnetMintBurnToken {
    function bridgeMint(address to, uint256 amount) external;
    function bridgeBurn(address from, uint256 amount) external;
}

/// Devnet TokenMinterV2: mints and burns the local USDC for TokenMessengerV2, as Circle's minter does for
/// FiatToken. The devnet token's mint/burn rights are granted to this contract (TestStablecoin.setBridge).
contract TokenMinterV2 {
    address public immutable tokenController;
    address public localTokenMessenger;
    mapping(address => uint256) public burnLimitsPerMessage;
    mapping(bytes32 => address) private remoteTokensToLocalTokens;

    event LocalTokenMessengerAdded(address localTokenMessenger);
    event TokenPairLinked(address localToken, uint32 remoteDomain, bytes32 remoteToken);
    event SetBurnLimitPerMessage(address indexed token, uint256 burnLimitPerMessage);

    constructor(address tokenController_) {
        tokenController = tokenController_;
    }

    modifier onlyTokenController() {
        require(msg.sender == tokenController, "Caller is not tokenController");
        _;
    }

    modifier onlyLocalTokenMessenger() {
        require(msg.sender == localTokenMessenger && msg.sender != address(0), "Caller not local TokenMessenger");
        _;
    }

    function addLocalTokenMessenger(address newLocalTokenMessenger) external onlyTokenController {
        require(localTokenMessenger == address(0), "Local TokenMessenger already set");
        localTokenMessenger = newLocalTokenMessenger;
        emit LocalTokenMessengerAdded(newLocalTokenMessenger);
    }

    function linkTokenPair(address localToken, uint32 remoteDomain, bytes32 remoteToken) external onlyTokenController {
        remoteTokensToLocalTokens[_remoteTokenKey(remoteDomain, remoteToken)] = localToken;
        emit TokenPairLinked(localToken, remoteDomain, remoteToken);
    }

    function setMaxBurnAmountPerMessage(address localToken, uint256 burnLimitPerMessage) external onlyTokenController {
        burnLimitsPerMessage[localToken] = burnLimitPerMessage;
        emit SetBurnLimitPerMessage(localToken, burnLimitPerMessage);
    }

    function getLocalToken(uint32 remoteDomain, bytes32 remoteToken) public view returns (address) {
        return remoteTokensToLocalTokens[_remoteTokenKey(remoteDomain, remoteToken)];
    }

    /// TokenMessengerV2 has moved `amount` of `burnToken` to this contract; burn it.
    function burn(address burnToken, uint256 amount) external onlyLocalTokenMessenger {
        uint256 limit = burnLimitsPerMessage[burnToken];
        require(limit > 0, "Burn token not supported");
        require(amount <= limit, "Burn amount exceeds per tx limit");
        IDevnetMintBurnToken(burnToken).bridgeBurn(address(this), amount);
    }

    /// Mints the local token paired with (sourceDomain, burnToken): the net amount to the recipient, the fee to the fee recipient.
    function mint(
        uint32 sourceDomain,
        bytes32 burnToken,
        address recipientOne,
        address recipientTwo,
        uint256 amountOne,
        uint256 amountTwo
    ) external onlyLocalTokenMessenger returns (address mintToken) {
        mintToken = getLocalToken(sourceDomain, burnToken);
        require(mintToken != address(0), "Mint token not supported");
        if (amountOne > 0) IDevnetMintBurnToken(mintToken).bridgeMint(recipientOne, amountOne);
        if (amountTwo > 0) IDevnetMintBurnToken(mintToken).bridgeMint(recipientTwo, amountTwo);
    }

    function _remoteTokenKey(uint32 remoteDomain, bytes32 remoteToken) private pure returns (bytes32) {
        return keccak256(abi.encodePacked(remoteDomain, remoteToken));
    }
}
