import assert from 'node:assert/strict';
import { MinedReceipts, type MinedReceipt } from '../../chains/evm/receipts';

/** A node whose blocks and receipts the test sets, counting the receipts it is asked for. */
function node() {
  const blocks = new Map<number, string>();
  const receipts = new Map<string, MinedReceipt & { txHash: string }>();
  const asked: string[] = [];
  const reads = {
    receipt: (txHash: string) => {
      asked.push(txHash);
      return Promise.resolve(receipts.get(txHash) ?? null);
    },
    blockHash: (blockNumber: number) => Promise.resolve(blocks.get(blockNumber) ?? null),
  };
  const mine = (txHash: string, blockNumber: number, blockHash: string) => {
    blocks.set(blockNumber, blockHash);
    receipts.set(txHash, { txHash, blockNumber, blockHash });
  };
  return { blocks, receipts, asked, reads, mine };
}

describe('MinedReceipts: a receipt read once while its block stands', () => {
  it('asks for an unmined transaction every time, and for a mined one once while the block at its height keeps its hash', async () => {
    const chain = node();
    const receipts = new MinedReceipts(chain.reads);
    assert.equal(await receipts.get('0xa'), null);
    assert.equal(await receipts.get('0xa'), null);
    chain.mine('0xa', 7, '0xb7');
    for (let i = 0; i < 3; i++) assert.deepEqual(await receipts.get('0xa'), { txHash: '0xa', blockNumber: 7, blockHash: '0xb7' });
    assert.deepEqual(chain.asked, ['0xa', '0xa', '0xa']);
  });

  it('asks again once a reorg replaced the block, and answers the transaction where it was mined again (or null)', async () => {
    const chain = node();
    const receipts = new MinedReceipts(chain.reads);
    chain.mine('0xa', 7, '0xb7');
    await receipts.get('0xa');
    // Re-mined one block later: block 7 has another hash now.
    chain.mine('0xa', 8, '0xb8');
    chain.blocks.set(7, '0xother7');
    assert.deepEqual(await receipts.get('0xa'), { txHash: '0xa', blockNumber: 8, blockHash: '0xb8' });
    // Dropped by a deeper reorg: the node has no block 8 and no receipt.
    chain.blocks.delete(8);
    chain.receipts.delete('0xa');
    assert.equal(await receipts.get('0xa'), null);
    assert.deepEqual(chain.asked, ['0xa', '0xa', '0xa']);
  });

  it('keeps at most its capacity, least recently used going first', async () => {
    const chain = node();
    const receipts = new MinedReceipts(chain.reads, 2);
    for (const [i, hash] of ['0x1', '0x2', '0x3'].entries()) chain.mine(hash, i + 1, `0xb${i + 1}`);
    await receipts.get('0x1');
    await receipts.get('0x2');
    await receipts.get('0x1'); // 0x2 is now the least recently used
    await receipts.get('0x3');
    chain.asked.length = 0;
    await receipts.get('0x1');
    await receipts.get('0x3');
    await receipts.get('0x2');
    assert.deepEqual(chain.asked, ['0x2']);
  });
});
