// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

import "./DepositForwarder.sol";

/// Derives one counterfactual deposit address per salt and sweeps funds out of it, deploying its forwarder on first use.
contract DepositFactory {
    address public immutable owner;
    bytes32 private immutable forwarderInitCodeHash;

    event Swept(bytes32 indexed salt, address indexed token, address indexed to, uint256 amount);

    constructor(address owner_) {
        owner = owner_;
        forwarderInitCodeHash = keccak256(type(DepositForwarder).creationCode);
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "DepositFactory: not owner");
        _;
    }

    function addressOf(bytes32 salt) public view returns (address) {
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, forwarderInitCodeHash)))));
    }

    function sweep(bytes32 salt, address token, address payable to, uint256 amount) external onlyOwner {
        address forwarder = addressOf(salt);
        // Deposits arrive before the forwarder exists; deploy it on the first sweep only.
        if (forwarder.code.length == 0) {
            new DepositForwarder{salt: salt}();
        }
        DepositForwarder(payable(forwarder)).transferOut(token, to, amount);
        emit Swept(salt, token, to, amount);
    }
}
