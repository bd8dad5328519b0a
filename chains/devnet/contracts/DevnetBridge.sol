// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

import "./TestStablecoin.sol";

/// Burn-and-mint bridge in the manner of CCTP; the owner relays burns on one chain into mints on another.
/// Each transferId can be burned once and minted once, so a relayer can retry either side safely.
contract DevnetBridge {
    address public immutable owner;
    mapping(bytes32 => bool) public burned;
    mapping(bytes32 => bool) public minted;

    event BridgeBurn(bytes32 indexed transferId, address indexed token, uint256 amount, uint256 destinationChainId, address recipient);
    event BridgeMint(bytes32 indexed transferId, address indexed token, uint256 amount, uint256 sourceChainId, address recipient);

    constructor(address owner_) {
        owner = owner_;
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "DevnetBridge: not owner");
        _;
    }

    function burn(bytes32 transferId, address token, uint256 amount, uint256 destinationChainId, address recipient)
        external
        onlyOwner
    {
        require(!burned[transferId], "DevnetBridge: already burned");
        burned[transferId] = true;
        TestStablecoin(token).bridgeBurn(msg.sender, amount);
        emit BridgeBurn(transferId, token, amount, destinationChainId, recipient);
    }

    function mint(bytes32 transferId, address token, uint256 amount, uint256 sourceChainId, address recipient)
        external
        onlyOwner
    {
        require(!minted[transferId], "DevnetBridge: already minted");
        minted[transferId] = true;
        TestStablecoin(token).bridgeMint(recipient, amount);
        emit BridgeMint(transferId, token, amount, sourceChainId, recipient);
    }
}
