// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import { Ownable } from "@openzeppelin/contracts/access/Ownable.sol";
import { OFTAdapter } from "@layerzerolabs/oft-evm/contracts/OFTAdapter.sol";
import { MintBurnOFTAdapter } from "@layerzerolabs/oft-evm/contracts/MintBurnOFTAdapter.sol";
import { IMintableBurnable } from "@layerzerolabs/oft-evm/contracts/interfaces/IMintableBurnable.sol";
import { IDevnetMintBurnToken } from "./TokenMinterV2.sol";

// The USDT0 mesh on the devnet, from LayerZero's own OFT contracts: a lock/unlock adapter over the existing USDT on
// the home chain (as USDT0's OAdapterUpgradeable on Ethereum) and a mint/burn adapter over the existing USDT on the
// other chain (as USDT0's OUpgradeable driving TetherTokenOFTExtension), so both chains keep their USDT address.

contract DevnetLockOFTAdapter is OFTAdapter {
    constructor(address token_, address endpoint_, address owner_) OFTAdapter(token_, endpoint_, owner_) Ownable(owner_) {}
}

contract DevnetMintBurnOFTAdapter is MintBurnOFTAdapter {
    constructor(address token_, IMintableBurnable minterBurner_, address endpoint_, address owner_)
        MintBurnOFTAdapter(token_, minterBurner_, endpoint_, owner_)
        Ownable(owner_)
    {}
}

/// Holds the devnet USDT's mint/burn rights (TestStablecoin.setBridge) and lends them to one OFT adapter only.
contract DevnetOFTMinterBurner is IMintableBurnable {
    IDevnetMintBurnToken public immutable token;
    address public immutable owner;
    address public operator;

    constructor(IDevnetMintBurnToken token_, address owner_) {
        token = token_;
        owner = owner_;
    }

    function setOperator(address operator_) external {
        require(msg.sender == owner, "DevnetOFTMinterBurner: not owner");
        require(operator == address(0), "DevnetOFTMinterBurner: operator already set");
        operator = operator_;
    }

    function burn(address from, uint256 amount) external returns (bool) {
        require(msg.sender == operator, "DevnetOFTMinterBurner: not operator");
        token.bridgeBurn(from, amount);
        return true;
    }

    function mint(address to, uint256 amount) external returns (bool) {
        require(msg.sender == operator, "DevnetOFTMinterBurner: not operator");
        token.bridgeMint(to, amount);
        return true;
    }
}
