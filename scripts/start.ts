import path from 'node:path';
import { startStack } from './stack';

/** `npm start`: the whole system on this machine, no configuration needed; every port can be moved by env. */
async function main(): Promise<void> {
  const port = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  const started = Date.now();
  const stack = await startStack({
    varDir: path.resolve(process.env.PAYRAIL_VAR_DIR ?? 'var'),
    persistent: true,
    worker: true,
    ports: {
      http: port('HTTP_PORT', 8080),
      postgres: port('POSTGRES_PORT', 54329),
      temporal: port('TEMPORAL_PORT', 7233),
      temporalUi: port('TEMPORAL_UI_PORT', 8233),
      chains: [port('DEVNET_ARBITRUM_PORT', 8545), port('DEVNET_BASE_PORT', 8546)],
      iris: port('DEVNET_IRIS_PORT', 8547),
      solana: port('DEVNET_SOLANA_PORT', 8899),
      ton: port('DEVNET_TON_PORT', 8548),
      tron: port('DEVNET_TRON_PORT', 8090),
      stellar: port('DEVNET_STELLAR_PORT', 8000),
      mailSink: { smtp: port('MAIL_SINK_SMTP_PORT', 2525), http: port('MAIL_SINK_HTTP_PORT', 8025) },
    },
    blockTimeMs: port('DEVNET_BLOCK_TIME_MS', 1000),
    // A developer's webhook receiver runs on this machine; production keeps private targets refused.
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ...process.env },
    log: (line) => console.log(`[payrail] ${line}`),
  });
  const { info } = stack;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`
Payrail is running (ready in ${seconds}s). Stack details: var/dev-stack.json

  Dashboard       ${info.dashboardUrl}   (log in as ${info.demoMerchant.developerEmail}; the code lands in the mail sink)
  Payment API     ${info.paymentApiUrl}
  Merchant API    ${info.merchantApiUrl}
  Legacy orders   ${info.legacyApiUrl}/v1/orders
  Temporal        ${info.temporalAddress}   UI: ${info.temporalUiUrl ?? '(external)'}
  Mail sink       ${info.mailSinkUrl ? `${info.mailSinkUrl}/messages?to=<your e-mail>   (login codes land here)` : `(external SMTP_URL)`}
${info.chains.map((c) => `  ${c.name.padEnd(16)} ${c.rpcUrl}  (${c.family} chain ${c.chainId}, ${Object.entries(c.tokens).map(([symbol, t]) => `${symbol} ${t.address}`).join(', ')})`).join('\n')}
  Bridges         CCTP v2 (USDC), attestations at ${stack.bridges.cctp.irisUrl}; LayerZero OFT (USDT), devnet relayer
  Demo merchant   ${info.demoMerchant.appId}, payout ${info.demoMerchant.payout.tokenSymbol} on ${info.demoMerchant.payout.chainId} to ${info.demoMerchant.payout.address}
                  (dashboard login: ${info.demoMerchant.developerEmail})

Create a payment:

  curl -s -X POST ${info.paymentApiUrl} \\
    -H 'Content-Type: application/json' -H 'X-API-Key: ${info.demoMerchant.ordersKey}' \\
    -d '{"type":"exactIn","orderId":"order-'$(date +%s)'","display":{"name":"Coffee","currency":"USD"},"source":{"chainId":"42161","tokenSymbol":"USDC","amount":"12.50"}}'

Or create a legacy order and open its payment_url in a browser:

  curl -s -X POST ${info.legacyApiUrl}/v1/orders \\
    -H 'Content-Type: application/json' -H 'token: ${info.demoMerchant.ordersKey}' \\
    -d '{"price_amount":19.99,"title":"Coffee","merchant_order_id":"order-'$(date +%s)'"}'

Pay from the funded customer wallet: npm run pay -- <payment id | order id>
Press Ctrl-C to stop everything.
`);
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    console.log('\n[payrail] stopping…');
    void stack.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((err: unknown) => {
  console.error('[payrail] failed to start:', err);
  process.exit(1);
});
