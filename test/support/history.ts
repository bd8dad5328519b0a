import type { temporal } from '@temporalio/proto';

const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

/**
 * The activity types a run called, in the order of their first call: its activity tasks and its local activities
 * (recorded as markers whose details name the type).
 */
export function activitiesCalled(history: temporal.api.history.v1.IHistory): string[] {
  const called: string[] = [];
  for (const event of history.events ?? []) {
    const marker = event.markerRecordedEventAttributes;
    const data = marker?.markerName === LOCAL_ACTIVITY_MARKER ? marker.details?.data?.payloads?.[0]?.data : undefined;
    const type = event.activityTaskScheduledEventAttributes?.activityType?.name ?? (data ? (JSON.parse(Buffer.from(data).toString()) as { activity_type?: string }).activity_type : undefined);
    if (type && !called.includes(type)) called.push(type);
  }
  return called;
}
