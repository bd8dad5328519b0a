import { temporal } from '@temporalio/proto';

const { EventType } = temporal.api.enums.v1;
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

/** The activity type of an activity task's scheduling, or of a local activity's marker (its details name the type). */
export function activityTypeOf(event: temporal.api.history.v1.IHistoryEvent): string | undefined {
  const marker = event.markerRecordedEventAttributes;
  const data = marker?.markerName === LOCAL_ACTIVITY_MARKER ? marker.details?.data?.payloads?.[0]?.data : undefined;
  return event.activityTaskScheduledEventAttributes?.activityType?.name ?? (data ? (JSON.parse(Buffer.from(data).toString()) as { activity_type?: string }).activity_type : undefined);
}

/** The activity types a run called, in the order of their first call: its activity tasks and its local activities. */
export function activitiesCalled(history: temporal.api.history.v1.IHistory): string[] {
  const called: string[] = [];
  for (const event of history.events ?? []) {
    const type = activityTypeOf(event);
    if (type && !called.includes(type)) called.push(type);
  }
  return called;
}

/** The type of each local activity the run recorded, in order. */
export function localActivities(history: temporal.api.history.v1.IHistory): string[] {
  return (history.events ?? []).flatMap((event) => (event.markerRecordedEventAttributes ? [activityTypeOf(event) ?? ''] : []));
}

/** The events a workflow task's commands write (those a payment run's commands can be). */
const COMMAND_EVENTS = new Set([
  EventType.EVENT_TYPE_MARKER_RECORDED,
  EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
  EventType.EVENT_TYPE_TIMER_STARTED,
  EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
  EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
]);

/** The events of the commands the run's first workflow task completed with: they follow its completion, together. */
export function firstTaskCommands(history: temporal.api.history.v1.IHistory): temporal.api.enums.v1.EventType[] {
  const events = history.events ?? [];
  const completed = events.findIndex((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
  const commands: temporal.api.enums.v1.EventType[] = [];
  for (const event of events.slice(completed + 1)) {
    if (!COMMAND_EVENTS.has(event.eventType!)) break;
    commands.push(event.eventType!);
  }
  return commands;
}
