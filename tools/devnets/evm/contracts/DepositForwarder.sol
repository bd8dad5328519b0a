// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// Holds one payment's deposits at a CREATE2 address; only its factory can move funds out.
contract DepositForwarder {
    // Immutable rather than a constructor argument so the init code (and thus the address) depends only on the salt.
    address public immutable factory;

    constructor() {
        factory = msg.sender;
    }

    receive() external payable {}

    /// Moves `amount` of `token` (address(0) = native coin) to `to`.
    function transferOut(address token, address payable to, uint256 amount) external {
        require(msg.sender == factory, "DepositForwarder: not factory");
        if (token == address(0)) {
            (bool sent, ) = to.call{value: amount}("");
            require(sent, "DepositForwarder: native transfer failed");
            return;
        }
        // Low-level call so tokens that return nothing (mainnet USDT) work; empty return data only counts
        // as success if there is a contract there, since calls to code-less addresses always succeed.
        (bool ok, bytes memory data) = token.call(abi.encodeWithSignature("transfer(address,uint256)", to, amount));
        require(
            ok && (data.length == 0 ? token.code.length > 0 : abi.decode(data, (bool))),
            "DepositForwarder: token transfer failed"
        );
    }
}
