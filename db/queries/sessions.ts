import type { Knex } from 'knex';

export interface DashboardSessionRow {
  id_hash: string;
  developer_id: string;
  created_at: Date;
  expires_at: Date;
}

/** Stores a session (by the hash of its cookie value) that ends `ttlSeconds` from now on the database clock. */
export async function insertDashboardSession(options: { knex: Knex; idHash: string; developerId: string; ttlSeconds: number }): Promise<Date> {
  const { knex, idHash, developerId, ttlSeconds } = options;
  const [row] = await knex<DashboardSessionRow>('dashboard_sessions')
    .insert({ id_hash: idHash, developer_id: developerId, expires_at: knex.raw('now() + make_interval(secs => ?)', [ttlSeconds]) as unknown as Date })
    .returning('expires_at');
  return row!.expires_at;
}

/** The developer (and e-mail) of a live session, or nothing when it is unknown, ended or expired. */
export async function findDashboardSession(options: { knex: Knex; idHash: string }): Promise<{ developerId: string; email: string; expiresAt: Date } | undefined> {
  const row = await options
    .knex('dashboard_sessions as s')
    .join('developers as d', 'd.id', 's.developer_id')
    .select<{ developer_id: string; email: string; expires_at: Date }[]>('s.developer_id', 'd.email', 's.expires_at')
    .where('s.id_hash', options.idHash)
    .where('s.expires_at', '>', options.knex.fn.now())
    .first();
  return row && { developerId: row.developer_id, email: row.email, expiresAt: row.expires_at };
}

export async function deleteDashboardSession(options: { knex: Knex; idHash: string }): Promise<void> {
  await options.knex('dashboard_sessions').where({ id_hash: options.idHash }).delete();
}

export async function deleteExpiredDashboardSessions(options: { knex: Knex }): Promise<number> {
  return options.knex('dashboard_sessions').where('expires_at', '<=', options.knex.fn.now()).delete();
}
