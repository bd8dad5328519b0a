// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

interface IERC20TransferFrom {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
}

/// Devnet batch sender, as wallets and exchanges use: several token transfers in one transaction (one log each).
contract MultiSend {
    function send(address token, address[] calldata recipients, uint256[] calldata amounts) external {
        require(recipients.length == amounts.length, "MultiSend: lengths differ");
        for (uint256 i = 0; i < recipients.length; i++) {
            require(IERC20TransferFrom(token).transferFrom(msg.sender, recipients[i], amounts[i]), "MultiSend: transfer failed");
        }
    }
}
