// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// Chainlink AggregatorV3-style feed whose answer the owner sets by hand.
contract MockPriceFeed {
    address public immutable owner;
    uint8 public immutable decimals;
    string public description;
    uint80 private roundId;
    int256 private answer;
    uint256 private updatedAt;

    constructor(uint8 decimals_, int256 answer_, string memory description_) {
        owner = msg.sender;
        decimals = decimals_;
        description = description_;
        _set(answer_);
    }

    function setAnswer(int256 answer_) external {
        require(msg.sender == owner, "MockPriceFeed: not owner");
        _set(answer_);
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        return (roundId, answer, updatedAt, updatedAt, roundId);
    }

    function _set(int256 answer_) private {
        roundId += 1;
        answer = answer_;
        updatedAt = block.timestamp;
    }
}
