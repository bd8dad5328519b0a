import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { formatAmount } from './amount';
import {
  lowerBound, MalformedEnvelopeError, textField, type JsonObject, type JsonValue, type LedgerRecord, type OperationRecord, type StellarLedger,
  type TransactionRecord,
} from './ledger';
import { BASE_FEE, PROTOCOL_VERSION } from './network';

// The subset of Horizon's HTTP API a payment service uses, in Horizon's JSON shapes (HAL links and pages,
// problem+json errors, SSE streams), served from a StellarLedger.

const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 200;
const MAX_BODY_BYTES = 256 * 1024;
const TOID_MAX = 2n ** 63n - 1n;
const HORIZON_VERSION = 'payrail-stellar-devnet';
const PERCENTILES = [10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99] as const;

class HttpProblem extends Error {
  constructor(readonly status: number, readonly type: string, readonly title: string, readonly detail: string, readonly extras?: JsonObject) {
    super(detail);
  }
}

const notFound = (): HttpProblem => new HttpProblem(404, 'not_found', 'Resource Missing',
  'The resource at the url requested was not found.  This usually occurs for one of two reasons:  The url requested is not valid, or no data in our database could be found with the parameters provided.');
const badRequest = (field: string, reason: string): HttpProblem => new HttpProblem(400, 'bad_request', 'Bad Request',
  'The request you sent was invalid in some way.', { invalid_field: field, reason });

interface PageParams { cursor: bigint | undefined; rawCursor: string; order: 'asc' | 'desc'; limit: number; includeFailed: boolean; joinTransactions: boolean }
interface HistoryItem { id: bigint; successful?: boolean }

/** A history list: records sorted by id, optionally restricted to ids in [from, to). */
interface Collection<R extends HistoryItem> {
  records: () => readonly R[];
  range?: [bigint, bigint];
  render: (record: R) => JsonObject;
  joinable?: boolean;
}

/** A collection with its record type erased: what pages and streams read. */
interface Listing { joinable: boolean; select: (params: PageParams) => { id: bigint; json: JsonObject }[] }

function listing<R extends HistoryItem>(collection: Collection<R>): Listing {
  return { joinable: collection.joinable ?? false, select: (params) => selectPage(collection, params).map((r) => ({ id: r.id, json: collection.render(r) })) };
}

function link(href: string, templated = false): JsonObject {
  return templated ? { href, templated: true } : { href };
}

function selectPage<R extends HistoryItem>(collection: Collection<R>, params: PageParams): R[] {
  const records = collection.records();
  const [from, to] = collection.range ?? [0n, TOID_MAX];
  const visible = (r: R) => params.includeFailed || r.successful !== false;
  const page: R[] = [];
  if (params.order === 'asc') {
    const start = params.cursor === undefined || params.cursor < from ? from : params.cursor + 1n;
    for (let i = lowerBound(records, start); i < records.length && page.length < params.limit; i++) {
      const record = records[i] as R;
      if (record.id >= to) break;
      if (visible(record)) page.push(record);
    }
  } else {
    const end = params.cursor === undefined || params.cursor > to ? to : params.cursor;
    for (let i = lowerBound(records, end) - 1; i >= 0 && page.length < params.limit; i--) {
      const record = records[i] as R;
      if (record.id < from) break;
      if (visible(record)) page.push(record);
    }
  }
  return page;
}

function percentileFields(values: bigint[]): JsonObject {
  const sorted = (values.length > 0 ? values : [BASE_FEE]).slice().sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const at = (p: number) => (sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as bigint).toString();
  const counts = new Map<bigint, number>();
  for (const v of sorted) counts.set(v, (counts.get(v) ?? 0) + 1);
  let mode = sorted[0] as bigint;
  for (const [value, count] of counts) if (count > (counts.get(mode) ?? 0)) mode = value;
  return {
    max: (sorted.at(-1) as bigint).toString(), min: (sorted[0] as bigint).toString(), mode: mode.toString(),
    ...Object.fromEntries(PERCENTILES.map((p) => [`p${p}`, at(p)])),
  };
}

export function createHorizonServer(ledger: StellarLedger, log: (line: string) => void): Server {
  const renderTransaction = (base: string, t: TransactionRecord): JsonObject => ({
    _links: {
      self: link(`${base}/transactions/${t.hash}`),
      account: link(`${base}/accounts/${textField(t, 'source_account')}`),
      ledger: link(`${base}/ledgers/${t.ledger}`),
      operations: link(`${base}/transactions/${t.hash}/operations{?cursor,limit,order}`, true),
      effects: link(`${base}/transactions/${t.hash}/effects{?cursor,limit,order}`, true),
      precedes: link(`${base}/transactions?order=asc&cursor=${t.id}`),
      succeeds: link(`${base}/transactions?order=desc&cursor=${t.id}`),
      transaction: link(`${base}/transactions/${t.hash}`),
    },
    id: t.hash,
    paging_token: t.id.toString(),
    ...t.fields,
  });

  const renderOperation = (base: string, o: OperationRecord, joinTransactions: boolean): JsonObject => {
    const rendered: JsonObject = {
      _links: {
        self: link(`${base}/operations/${o.id}`),
        transaction: link(`${base}/transactions/${o.txHash}`),
        effects: link(`${base}/operations/${o.id}/effects`),
        succeeds: link(`${base}/effects?order=desc&cursor=${o.id}`),
        precedes: link(`${base}/effects?order=asc&cursor=${o.id}`),
      },
      id: o.id.toString(),
      paging_token: o.id.toString(),
      ...o.fields,
    };
    const tx = joinTransactions ? ledger.transaction(o.txHash) : undefined;
    if (tx) rendered.transaction = renderTransaction(base, tx);
    return rendered;
  };

  const renderLedger = (base: string, l: LedgerRecord): JsonObject => ({
    _links: {
      self: link(`${base}/ledgers/${l.seq}`),
      transactions: link(`${base}/ledgers/${l.seq}/transactions{?cursor,limit,order}`, true),
      operations: link(`${base}/ledgers/${l.seq}/operations{?cursor,limit,order}`, true),
      payments: link(`${base}/ledgers/${l.seq}/payments{?cursor,limit,order}`, true),
      effects: link(`${base}/ledgers/${l.seq}/effects{?cursor,limit,order}`, true),
    },
    id: textField(l, 'hash'),
    paging_token: l.id.toString(),
    ...l.fields,
  });

  const findLedger = (seq: number): LedgerRecord | undefined => {
    const found = ledger.ledgers[lowerBound(ledger.ledgers, BigInt(seq) << 32n)];
    return found?.seq === seq ? found : undefined;
  };

  const renderAccount = (base: string, id: string): JsonObject => {
    const found = ledger.account(id);
    if (!found) throw notFound();
    const { account, trustlines } = found;
    const modified = findLedger(account.lastModifiedLedger);
    const zero = formatAmount(0n);
    const balances: JsonValue[] = trustlines.map((t) => ({
      balance: formatAmount(t.balance), limit: formatAmount(t.limit), buying_liabilities: zero, selling_liabilities: zero,
      last_modified_ledger: t.lastModifiedLedger, is_authorized: true, is_authorized_to_maintain_liabilities: true, is_clawback_enabled: false,
      asset_type: t.code.length <= 4 ? 'credit_alphanum4' : 'credit_alphanum12', asset_code: t.code, asset_issuer: t.issuer,
    }));
    balances.push({ balance: formatAmount(account.balance), buying_liabilities: zero, selling_liabilities: zero, asset_type: 'native' });
    const history = (name: string) => link(`${base}/accounts/${id}/${name}{?cursor,limit,order}`, true);
    const json: JsonObject = {
      _links: {
        self: link(`${base}/accounts/${id}`),
        transactions: history('transactions'), operations: history('operations'), payments: history('payments'),
        effects: history('effects'), offers: history('offers'), trades: history('trades'),
        data: link(`${base}/accounts/${id}/data/{key}`, true),
      },
      id, account_id: id, sequence: account.seqNum.toString(),
    };
    if (account.seqLedger > 0) Object.assign(json, { sequence_ledger: account.seqLedger, sequence_time: account.seqTime.toString() });
    return Object.assign(json, {
      subentry_count: account.numSubEntries,
      last_modified_ledger: account.lastModifiedLedger,
      last_modified_time: modified ? textField(modified, 'closed_at') : null,
      thresholds: { low_threshold: account.thresholds.low, med_threshold: account.thresholds.med, high_threshold: account.thresholds.high },
      flags: { auth_required: false, auth_revocable: false, auth_immutable: false, auth_clawback_enabled: false },
      balances,
      signers: account.thresholds.master > 0 ? [{ weight: account.thresholds.master, key: id, type: 'ed25519_public_key' }] : [],
      data: {},
      num_sponsoring: 0,
      num_sponsored: 0,
      paging_token: id,
    });
  };

  const renderRoot = (base: string): JsonObject => {
    const latest = ledger.latestLedger;
    return {
      _links: {
        account: link(`${base}/accounts/{account_id}`, true),
        fee_stats: link(`${base}/fee_stats`),
        ledger: link(`${base}/ledgers/{sequence}`, true),
        ledgers: link(`${base}/ledgers{?cursor,limit,order}`, true),
        operations: link(`${base}/operations{?cursor,limit,order,include_failed}`, true),
        payments: link(`${base}/payments{?cursor,limit,order,include_failed}`, true),
        self: link(`${base}/`),
        transaction: link(`${base}/transactions/{hash}`, true),
        transactions: link(`${base}/transactions{?cursor,limit,order}`, true),
      },
      horizon_version: HORIZON_VERSION,
      core_version: `${HORIZON_VERSION} (in-memory ledger, no stellar-core)`,
      ingest_latest_ledger: latest.seq,
      history_latest_ledger: latest.seq,
      history_latest_ledger_closed_at: textField(latest, 'closed_at'),
      history_elder_ledger: ledger.ledgers[0]?.seq ?? latest.seq,
      core_latest_ledger: latest.seq,
      network_passphrase: ledger.networkPassphrase,
      current_protocol_version: PROTOCOL_VERSION,
      supported_protocol_version: PROTOCOL_VERSION,
      core_supported_protocol_version: PROTOCOL_VERSION,
    };
  };

  const renderFeeStats = (): JsonObject => {
    const stats = ledger.feeStats();
    return {
      last_ledger: stats.lastLedger.toString(),
      last_ledger_base_fee: BASE_FEE.toString(),
      ledger_capacity_usage: stats.capacityUsage.toFixed(2),
      fee_charged: percentileFields(stats.feeCharged),
      max_fee: percentileFields(stats.maxFee),
    };
  };

  const pageParams = (url: URL): PageParams => {
    const q = url.searchParams;
    const rawCursor = q.get('cursor') ?? '';
    let cursor: bigint | undefined;
    if (rawCursor === 'now') cursor = (BigInt(ledger.latestLedger.seq + 1) << 32n) - 1n;
    else if (/^\d{1,19}$/.test(rawCursor)) cursor = BigInt(rawCursor);
    else if (rawCursor !== '') throw badRequest('cursor', 'the cursor must be a paging_token or "now"');
    const order = q.get('order') ?? 'asc';
    if (order !== 'asc' && order !== 'desc') throw badRequest('order', 'order must be "asc" or "desc"');
    const limit = Number(q.get('limit') ?? DEFAULT_LIMIT);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw badRequest('limit', `limit must be an integer from 1 to ${MAX_LIMIT}`);
    const includeFailed = q.get('include_failed') ?? 'false';
    if (includeFailed !== 'true' && includeFailed !== 'false') throw badRequest('include_failed', 'include_failed must be "true" or "false"');
    const join = q.get('join');
    if (join !== null && join !== 'transactions') throw badRequest('join', 'join accepts only "transactions"');
    return { cursor, rawCursor, order, limit, includeFailed: includeFailed === 'true', joinTransactions: join === 'transactions' };
  };

  const pageLink = (url: URL, cursor: string, order: string, limit: number): JsonObject => {
    const next = new URL(url);
    next.searchParams.set('cursor', cursor);
    next.searchParams.set('limit', String(limit));
    next.searchParams.set('order', order);
    return link(next.toString());
  };

  const sendPage = (res: ServerResponse, url: URL, collection: Listing, params: PageParams): void => {
    const records = collection.select(params).map((r) => r.json);
    const first = records[0]?.paging_token;
    const last = records.at(-1)?.paging_token;
    const reverse = params.order === 'asc' ? 'desc' : 'asc';
    sendJson(res, 200, {
      _links: {
        self: link(url.toString()),
        next: pageLink(url, typeof last === 'string' ? last : params.rawCursor, params.order, params.limit),
        prev: pageLink(url, typeof first === 'string' ? first : params.rawCursor, reverse, params.limit),
      },
      _embedded: { records },
    });
  };

  /** Horizon's streaming: an "open" event, then every record after the cursor (or Last-Event-ID), then each new one as ledgers close. */
  const stream = (req: IncomingMessage, res: ServerResponse, collection: Listing, params: PageParams): void => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
    res.write('retry: 1000\nevent: open\ndata: "hello"\n\n');
    const lastEventId = req.headers['last-event-id'];
    let cursor = typeof lastEventId === 'string' && /^\d{1,19}$/.test(lastEventId) ? BigInt(lastEventId) : params.cursor;
    const flush = (): void => {
      for (;;) {
        const page = collection.select({ ...params, cursor, order: 'asc', limit: MAX_LIMIT });
        for (const record of page) res.write(`id: ${record.id}\ndata: ${JSON.stringify(record.json)}\n\n`);
        cursor = page.at(-1)?.id ?? cursor;
        if (page.length < MAX_LIMIT) return;
      }
    };
    flush();
    const unsubscribe = ledger.onLedgerClosed(flush);
    res.on('close', unsubscribe);
  };

  const submit = async (req: IncomingMessage, res: ServerResponse, base: string): Promise<void> => {
    // Horizon takes the envelope as a form field, as the SDK sends it.
    const envelope = new URLSearchParams(await readBody(req)).get('tx');
    if (envelope === null || envelope === '') throw badRequest('tx', 'the tx field (a base64 TransactionEnvelope) is required');
    let outcome;
    try {
      outcome = await ledger.submit(envelope);
    } catch (err) {
      if (!(err instanceof MalformedEnvelopeError)) throw err;
      throw new HttpProblem(400, 'transaction_malformed', 'Transaction Malformed',
        'Horizon could not decode the transaction envelope in this request. A transaction should be an XDR TransactionEnvelope struct encoded using base64.  The envelope read from this request is echoed in the `extras.envelope_xdr` field of this response for your convenience.',
        { envelope_xdr: envelope });
    }
    if (outcome.kind === 'applied' && outcome.record.successful) {
      log(`tx ${outcome.record.hash} applied in ledger ${outcome.record.ledger}`);
      sendJson(res, 200, renderTransaction(base, outcome.record));
      return;
    }
    // Refused at admission, or applied with a failed operation (fee charged, sequence consumed): Horizon answers both alike.
    const failure = outcome.kind === 'rejected'
      ? { hash: outcome.hash, envelope: outcome.envelopeXdr, result: outcome.resultXdr, codes: outcome.resultCodes, detail: outcome.detail }
      : { hash: outcome.record.hash, envelope: textField(outcome.record, 'envelope_xdr'), result: textField(outcome.record, 'result_xdr'), codes: outcome.record.resultCodes, detail: undefined };
    log(`tx ${failure.hash} failed: ${JSON.stringify(failure.codes)}${failure.detail ? ` (${failure.detail})` : ''}`);
    const codes: JsonObject = { transaction: failure.codes.transaction };
    if (failure.codes.operations) codes.operations = failure.codes.operations;
    throw new HttpProblem(400, 'transaction_failed', 'Transaction Failed',
      `The transaction failed when submitted to the stellar network. The \`extras.result_codes\` field on this response contains further details.  Descriptions of each code can be found at: https://developers.stellar.org/docs/data/apis/horizon/api-reference/errors/result-codes/transactions${failure.detail ? ` (devnet: ${failure.detail})` : ''}`,
      { envelope_xdr: failure.envelope, result_codes: codes, result_xdr: failure.result });
  };

  const operationsIn = (base: string, records: () => readonly OperationRecord[], range?: [bigint, bigint]) =>
    (params: PageParams): Listing => listing({ records, range, joinable: true, render: (o) => renderOperation(base, o, params.joinTransactions) });
  const transactionsIn = (base: string, records: () => readonly TransactionRecord[], range?: [bigint, bigint]): Listing =>
    listing({ records, range, render: (t) => renderTransaction(base, t) });

  /** The collection a list URL names, or undefined when the URL names a single resource. */
  const collectionFor = (base: string, segments: string[]): ((params: PageParams) => Listing) | undefined => {
    const [root, id, sub] = segments;
    if (segments.length === 1) {
      if (root === 'transactions') return () => transactionsIn(base, () => ledger.transactions);
      if (root === 'operations') return operationsIn(base, () => ledger.operations);
      if (root === 'payments') return operationsIn(base, () => ledger.payments);
      if (root === 'ledgers') return () => listing({ records: () => ledger.ledgers, render: (l) => renderLedger(base, l) });
      return undefined;
    }
    if (segments.length !== 3 || id === undefined) return undefined;
    let range: [bigint, bigint] | undefined;
    if (root === 'accounts') {
      if (sub === 'transactions') return () => transactionsIn(base, () => ledger.transactionsOf(id));
      if (sub === 'operations') return operationsIn(base, () => ledger.operationsOf(id));
      if (sub === 'payments') return operationsIn(base, () => ledger.paymentsOf(id));
      return undefined;
    }
    if (root === 'ledgers' && /^\d+$/.test(id)) range = [BigInt(id) << 32n, (BigInt(id) + 1n) << 32n];
    if (root === 'transactions') {
      const tx = ledger.transaction(id);
      if (!tx) throw notFound();
      range = [tx.id, tx.id + 4096n];
    }
    if (range === undefined) return undefined;
    if (sub === 'transactions' && root === 'ledgers') return () => transactionsIn(base, () => ledger.transactions, range);
    if (sub === 'operations') return operationsIn(base, () => ledger.operations, range);
    if (sub === 'payments') return operationsIn(base, () => ledger.payments, range);
    return undefined;
  };

  const getResource = (base: string, segments: string[]): JsonObject => {
    const [root, id] = segments;
    if (segments.length === 0) return renderRoot(base);
    if (segments.length === 1 && root === 'fee_stats') return renderFeeStats();
    if (segments.length !== 2 || id === undefined) throw notFound();
    if (root === 'accounts') return renderAccount(base, id);
    if (root === 'transactions') {
      const tx = ledger.transaction(id);
      if (!tx) throw notFound();
      return renderTransaction(base, tx);
    }
    if (root === 'operations' && /^\d{1,19}$/.test(id)) {
      const op = ledger.operations[lowerBound(ledger.operations, BigInt(id))];
      if (op?.id !== BigInt(id)) throw notFound();
      return renderOperation(base, op, false);
    }
    if (root === 'ledgers' && /^\d{1,10}$/.test(id)) {
      const found = findLedger(Number(id));
      if (!found) throw notFound();
      return renderLedger(base, found);
    }
    throw notFound();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const base = `http://${req.headers.host ?? 'localhost'}`;
    const url = new URL(req.url ?? '/', base);
    const segments = url.pathname.split('/').filter((s) => s !== '');
    try {
      if (req.method === 'POST' && segments.length === 1 && segments[0] === 'transactions') {
        await submit(req, res, base);
        return;
      }
      if (req.method !== 'GET') throw new HttpProblem(405, 'method_not_allowed', 'Method Not Allowed', 'This endpoint does not support the request method you used.');
      const collection = collectionFor(base, segments);
      if (!collection) {
        sendJson(res, 200, getResource(base, segments));
        return;
      }
      const params = pageParams(url);
      const resolved = collection(params);
      if (params.joinTransactions && !resolved.joinable) throw badRequest('join', 'only operations and payments accept join=transactions');
      if ((req.headers.accept ?? '').includes('text/event-stream')) stream(req, res, resolved, params);
      else sendPage(res, url, resolved, params);
    } catch (err) {
      if (!(err instanceof HttpProblem)) log(`error serving ${req.method} ${req.url}: ${err instanceof Error ? err.stack : String(err)}`);
      const p = err instanceof HttpProblem ? err : new HttpProblem(500, 'server_error', 'Internal Server Error', 'An error occurred while processing this request.');
      if (res.headersSent) {
        res.end();
        return;
      }
      sendJson(res, p.status, { type: `https://stellar.org/horizon-errors/${p.type}`, title: p.title, status: p.status, detail: p.detail, ...(p.extras ? { extras: p.extras } : {}) },
        'application/problem+json; charset=utf-8');
    }
  };

  return createServer((req, res) => void handle(req, res));
}

function sendJson(res: ServerResponse, status: number, body: JsonObject, contentType = 'application/hal+json; charset=utf-8'): void {
  res.writeHead(status, { 'Content-Type': contentType });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw badRequest('tx', `the request body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
