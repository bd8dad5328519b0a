/**
 * History <-> proto-JSON (the format of `temporal workflow show --output json` and the Web UI's download).
 *
 * Does what `historyToJSON` / `historyFromJSON` of `@temporalio/common/lib/proto-utils` do. Those cannot be used
 * here: with this repo's install they throw `TypeError: type must be a Type`, because protobufjs@8 is installed
 * twice (nested under @temporalio/common and under @temporalio/proto; the root copy is protobufjs@7 for
 * @grpc/proto-loader) and protojson's `instanceof Type` check fails across the copies. `Worker.runReplayHistories`
 * goes through the same `historyFromJSON` when handed JSON, so the replay test passes it decoded `History` objects.
 * This module uses the protojson of the very protobufjs copy that @temporalio/proto's types were built with.
 */
import { createRequire } from 'node:module';
import * as proto from '@temporalio/proto';
import { patchProtobufRoot } from '@temporalio/proto/lib/patch-protobuf-root';

export type History = proto.temporal.api.history.v1.IHistory;

interface ProtoJson {
  toJson(type: unknown, message: unknown): unknown;
  fromJson(type: unknown, json: unknown, options?: { ignoreUnknownFields?: boolean }): unknown;
}

const protoRequire = createRequire(require.resolve('@temporalio/proto'));
const protojson = protoRequire('protobufjs/ext/protojson') as ProtoJson;
const root = patchProtobufRoot(proto) as unknown as { lookupType(name: string): unknown };
const historyType = root.lookupType('temporal.api.history.v1.History');

export function historyToJSON(history: History): string {
  const message = proto.temporal.api.history.v1.History.fromObject(history);
  return JSON.stringify(protojson.toJson(historyType, message), null, 2);
}

export function historyFromJSON(json: string): History & { events: proto.temporal.api.history.v1.IHistoryEvent[] } {
  // Tolerate fields a newer server or SDK may add, as the SDK's own parser does.
  const history = protojson.fromJson(historyType, JSON.parse(json), { ignoreUnknownFields: true }) as History | null;
  if (!history?.events?.length) throw new TypeError('not a workflow history');
  return history as History & { events: proto.temporal.api.history.v1.IHistoryEvent[] };
}
