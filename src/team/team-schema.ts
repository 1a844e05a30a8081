/**
 * The team database's schema, as versioned migrations (applied in order by migrations.ts).
 * A migration is never edited once released: a change is a new one at the end.
 *
 * Who may do what (the grants are in migrations.ts, re-applied by every `team init`):
 * - members read everything (the team's usage and audit trail are the team's; the tool
 *   arguments in audit rows are redacted before they leave the editor);
 * - members append audit rows and notes, only as themselves (row-level security checks the
 *   row's db_role is the login that writes it); they cannot change or delete any row;
 * - members never write budget counters, reservations or usage directly: reserve() and the
 *   usage recorder are SECURITY DEFINER functions, so nobody can lower a counter by hand;
 * - the policy is written by the admin only.
 *
 * Budget counters hold settled spend plus open reservations, per (scope, subject, period):
 * ('team', '', 'YYYY-MM-DD' | 'YYYY-MM'), ('member', email, day | month) and
 * ('conversation', id, 'total'). Every writer locks the counter rows it touches in key order
 * (sorted, one at a time) after any reservation rows, so concurrent writers cannot deadlock.
 */

import {
  APPROVAL_INTERNAL_FUNCTIONS,
  APPROVAL_MEMBER_FUNCTIONS,
  APPROVAL_TABLES,
  approvalSchemaSql,
} from './approval-schema';

export interface Migration {
  version: number;
  description: string;
  /** The SQL, for the schema it is created in (quoted identifier). */
  sql(schema: string): string;
}

/** The SECURITY DEFINER functions members may call, with their argument types (for grants). */
export const MEMBER_FUNCTIONS = [
  'openagent_reserve(text, text, text, numeric, bigint, text, text, bigint, jsonb)',
  'openagent_record_usage(jsonb)',
  'openagent_release_stale()',
  ...APPROVAL_MEMBER_FUNCTIONS,
];

/** Internal helpers: nobody but their owner calls them directly. */
export const INTERNAL_FUNCTIONS = [
  'openagent_call_deltas(text, text, text, text, numeric, bigint)',
  'openagent_take_stale()',
  'openagent_lock_counters(jsonb)',
  'openagent_apply_deltas(jsonb)',
  'openagent_audit_is_append_only()',
  ...APPROVAL_INTERNAL_FUNCTIONS,
];

export const TABLES = [
  'openagent_schema_version',
  'team_policy',
  'usage',
  'audit',
  'budget_counters',
  'reservations',
  'team_memory',
  ...APPROVAL_TABLES,
];

const tables = `
CREATE TABLE team_policy (
  version serial PRIMARY KEY,
  text text NOT NULL,
  changed_by text NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE usage (
  id text PRIMARY KEY,
  member text NOT NULL,
  repository text,
  conversation_id text NOT NULL,
  provider text NOT NULL,
  model text NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  cache_read_tokens bigint NOT NULL,
  cache_write_tokens bigint NOT NULL,
  cost_usd numeric NOT NULL,
  time timestamptz NOT NULL,
  reservation_id text,
  db_role text NOT NULL DEFAULT current_user,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_time_idx ON usage (time);
CREATE INDEX usage_member_time_idx ON usage (member, time);

CREATE TABLE audit (
  id text PRIMARY KEY,
  member text NOT NULL,
  repository text,
  conversation_id text NOT NULL,
  time timestamptz NOT NULL,
  kind text NOT NULL,
  data jsonb NOT NULL,
  db_role text NOT NULL DEFAULT current_user,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_time_id_idx ON audit (time, id);

CREATE TABLE budget_counters (
  scope text NOT NULL CHECK (scope IN ('team', 'member', 'conversation')),
  subject text NOT NULL,
  period text NOT NULL,
  usd numeric NOT NULL DEFAULT 0,
  tokens bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (scope, subject, period)
);

CREATE TABLE reservations (
  id text PRIMARY KEY,
  member text NOT NULL,
  conversation_id text NOT NULL,
  usd numeric NOT NULL,
  tokens bigint NOT NULL,
  day text NOT NULL,
  month text NOT NULL,
  state text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'settled', 'expired')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  db_role text NOT NULL
);
CREATE INDEX reservations_open_idx ON reservations (expires_at) WHERE state = 'open';

CREATE TABLE team_memory (
  id text PRIMARY KEY,
  scope text NOT NULL CHECK (scope IN ('team', 'repository', 'member')),
  repository text,
  member text NOT NULL,
  text text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  db_role text NOT NULL DEFAULT current_user,
  tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED
);
CREATE INDEX team_memory_tsv_idx ON team_memory USING gin (tsv);
`;

// Defence in depth: even a role that was granted UPDATE or DELETE by mistake (or the owner)
// cannot rewrite history; an admin pruning old rows disables the trigger explicitly.
const appendOnlyAudit = `
CREATE FUNCTION openagent_audit_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the team audit trail is append-only: % is refused', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON audit
  FOR EACH ROW EXECUTE FUNCTION openagent_audit_is_append_only();
CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON audit
  FOR EACH STATEMENT EXECUTE FUNCTION openagent_audit_is_append_only();

ALTER TABLE audit ENABLE ROW LEVEL SECURITY;
CREATE POLICY audit_read_all ON audit FOR SELECT USING (true);
CREATE POLICY audit_append_own ON audit FOR INSERT WITH CHECK (db_role = current_user);

ALTER TABLE team_memory ENABLE ROW LEVEL SECURITY;
CREATE POLICY team_memory_read_all ON team_memory FOR SELECT USING (true);
CREATE POLICY team_memory_append_own ON team_memory FOR INSERT WITH CHECK (db_role = current_user);
`;

function budgetFunctions(schema: string): string {
  // SECURITY DEFINER functions run with a fixed search_path, so a member cannot shadow a table.
  const definer = `SECURITY DEFINER SET search_path = ${schema}, pg_temp`;
  return `
-- The five counters one call touches, as deltas.
CREATE FUNCTION openagent_call_deltas(p_member text, p_conversation text, p_day text, p_month text,
    p_usd numeric, p_tokens bigint) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_array(
    jsonb_build_object('scope', 'team', 'subject', '', 'period', p_day, 'usd', p_usd, 'tokens', p_tokens),
    jsonb_build_object('scope', 'team', 'subject', '', 'period', p_month, 'usd', p_usd, 'tokens', p_tokens),
    jsonb_build_object('scope', 'member', 'subject', p_member, 'period', p_day, 'usd', p_usd, 'tokens', p_tokens),
    jsonb_build_object('scope', 'member', 'subject', p_member, 'period', p_month, 'usd', p_usd, 'tokens', p_tokens),
    jsonb_build_object('scope', 'conversation', 'subject', p_conversation, 'period', 'total',
      'usd', p_usd, 'tokens', p_tokens))
$$;

-- Marks open reservations past their expiry as expired (skipping any another transaction is
-- settling right now) and returns the deltas that release their estimates.
CREATE FUNCTION openagent_take_stale() RETURNS jsonb LANGUAGE sql AS $$
  WITH stale AS (
    SELECT id FROM reservations WHERE state = 'open' AND expires_at < now()
    ORDER BY id COLLATE "C" LIMIT 500 FOR UPDATE SKIP LOCKED
  ), expired AS (
    UPDATE reservations r SET state = 'expired' FROM stale WHERE r.id = stale.id
    RETURNING r.member, r.conversation_id, r.day, r.month, r.usd, r.tokens
  )
  SELECT coalesce(jsonb_agg(d), '[]'::jsonb)
  FROM expired, jsonb_array_elements(
    openagent_call_deltas(member, conversation_id, day, month, -usd, -tokens)) AS d
$$;

-- Creates and locks the counter rows of these deltas, one at a time in key order.
CREATE FUNCTION openagent_lock_counters(p_deltas jsonb) RETURNS void LANGUAGE plpgsql AS $$
DECLARE k record;
BEGIN
  FOR k IN
    SELECT scope, subject, period
    FROM jsonb_to_recordset(p_deltas) AS x(scope text, subject text, period text)
    GROUP BY scope, subject, period
    ORDER BY scope COLLATE "C", subject COLLATE "C", period COLLATE "C"
  LOOP
    INSERT INTO budget_counters AS c (scope, subject, period) VALUES (k.scope, k.subject, k.period)
    ON CONFLICT (scope, subject, period) DO UPDATE SET usd = c.usd;
  END LOOP;
END $$;

-- Adds the deltas (summed per counter), in key order.
CREATE FUNCTION openagent_apply_deltas(p_deltas jsonb) RETURNS void LANGUAGE plpgsql AS $$
DECLARE d record;
BEGIN
  FOR d IN
    SELECT scope, subject, period, sum(usd) AS usd, sum(tokens) AS tokens
    FROM jsonb_to_recordset(p_deltas) AS x(scope text, subject text, period text, usd numeric, tokens bigint)
    GROUP BY scope, subject, period
    ORDER BY scope COLLATE "C", subject COLLATE "C", period COLLATE "C"
  LOOP
    INSERT INTO budget_counters AS c (scope, subject, period, usd, tokens)
    VALUES (d.scope, d.subject, d.period, d.usd, d.tokens)
    ON CONFLICT (scope, subject, period)
    DO UPDATE SET usd = c.usd + EXCLUDED.usd, tokens = c.tokens + EXCLUDED.tokens;
  END LOOP;
END $$;

-- Releases stale reservations (for readers of the counters).
CREATE FUNCTION openagent_release_stale() RETURNS void LANGUAGE plpgsql ${definer} AS $$
DECLARE stale jsonb;
BEGIN
  stale := openagent_take_stale();
  PERFORM openagent_apply_deltas(stale);
END $$;

-- One model call's reservation, in one transaction: release stale reservations, lock the
-- counters, check every limit (committed + estimate <= value), then hold the estimate on all
-- five counters of the call. p_limits: [{i, scope, subject, period, unit, value}].
-- Returns {granted, retried, refused (i), committed, values: [committed per limit, in order]}.
CREATE FUNCTION openagent_reserve(p_id text, p_member text, p_conversation text, p_usd numeric,
    p_tokens bigint, p_day text, p_month text, p_ttl_ms bigint, p_limits jsonb)
    RETURNS jsonb LANGUAGE plpgsql ${definer} AS $$
DECLARE
  stale jsonb;
  call jsonb;
  l record;
  counter record;
  committed numeric;
  estimate numeric;
  amounts jsonb := '[]'::jsonb;
  refused integer;
  refused_committed numeric;
  retried boolean;
BEGIN
  -- A retried call (its first answer was lost on the way) holds its estimate already.
  retried := EXISTS (SELECT 1 FROM reservations WHERE id = p_id);
  stale := openagent_take_stale();
  call := openagent_call_deltas(p_member, p_conversation, p_day, p_month, p_usd, p_tokens);
  PERFORM openagent_lock_counters(stale || call);
  PERFORM openagent_apply_deltas(stale);
  FOR l IN
    SELECT * FROM jsonb_to_recordset(p_limits)
      AS x(i integer, scope text, subject text, period text, unit text, value numeric)
    ORDER BY i
  LOOP
    SELECT usd, tokens INTO counter FROM budget_counters
    WHERE scope = l.scope AND subject = l.subject AND period = l.period;
    committed := CASE WHEN l.unit = 'usd' THEN coalesce(counter.usd, 0) ELSE coalesce(counter.tokens, 0) END;
    estimate := CASE WHEN l.unit = 'usd' THEN p_usd ELSE p_tokens END;
    amounts := amounts || to_jsonb(committed::text);
    IF refused IS NULL AND NOT retried AND committed + estimate > l.value THEN
      refused := l.i;
      refused_committed := committed;
    END IF;
  END LOOP;
  IF refused IS NULL AND NOT retried THEN
    PERFORM openagent_apply_deltas(call);
    INSERT INTO reservations (id, member, conversation_id, usd, tokens, day, month, expires_at, db_role)
    VALUES (p_id, p_member, p_conversation, p_usd, p_tokens, p_day, p_month,
      now() + p_ttl_ms * interval '1 millisecond', session_user);
  END IF;
  RETURN jsonb_build_object('granted', refused IS NULL, 'retried', retried, 'refused', refused,
    'committed', refused_committed::text, 'values', amounts);
END $$;

-- Records usage rows (skipping ids already there) and counts each new one once: a call whose
-- reservation is still open settles it (the counters it touched get actual - estimate);
-- otherwise (no reservation, or it expired) the actual cost is added. Returns how many were new.
CREATE FUNCTION openagent_record_usage(p_usage jsonb) RETURNS integer LANGUAGE plpgsql ${definer} AS $$
DECLARE
  item record;
  fresh text[] := '{}';
  deltas jsonb;
BEGIN
  FOR item IN
    SELECT * FROM jsonb_to_recordset(p_usage) AS x(id text, member text, repository text,
      conversation_id text, provider text, model text, input_tokens bigint, output_tokens bigint,
      cache_read_tokens bigint, cache_write_tokens bigint, cost_usd numeric, time timestamptz,
      reservation_id text)
    ORDER BY id COLLATE "C"
  LOOP
    INSERT INTO usage (id, member, repository, conversation_id, provider, model, input_tokens,
      output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, time, reservation_id, db_role)
    VALUES (item.id, item.member, item.repository, item.conversation_id, item.provider, item.model,
      item.input_tokens, item.output_tokens, item.cache_read_tokens, item.cache_write_tokens,
      item.cost_usd, item.time, item.reservation_id, session_user)
    ON CONFLICT (id) DO NOTHING;
    IF FOUND THEN
      fresh := fresh || item.id;
    END IF;
  END LOOP;
  IF cardinality(fresh) = 0 THEN
    RETURN 0;
  END IF;
  -- Reservation rows are locked in id order, before any counter (as in reserve).
  PERFORM 1 FROM reservations
  WHERE state = 'open' AND id IN (SELECT reservation_id FROM usage WHERE id = ANY (fresh))
  ORDER BY id COLLATE "C" FOR UPDATE;
  WITH settled AS (
    UPDATE reservations r SET state = 'settled'
    FROM usage s
    WHERE s.id = ANY (fresh) AND r.id = s.reservation_id AND r.state = 'open'
    RETURNING r.id, r.member, r.conversation_id, r.day, r.month, r.usd, r.tokens
  ), call_deltas AS (
    SELECT openagent_call_deltas(s.member, s.conversation_id, s.day, s.month,
      u.cost_usd - s.usd, u.input_tokens + u.output_tokens - s.tokens) AS ds
    FROM usage u JOIN settled s ON s.id = u.reservation_id
    WHERE u.id = ANY (fresh)
    UNION ALL
    SELECT openagent_call_deltas(u.member, u.conversation_id,
      to_char(u.time AT TIME ZONE 'UTC', 'YYYY-MM-DD'), to_char(u.time AT TIME ZONE 'UTC', 'YYYY-MM'),
      u.cost_usd, u.input_tokens + u.output_tokens) AS ds
    FROM usage u
    WHERE u.id = ANY (fresh)
      AND (u.reservation_id IS NULL OR u.reservation_id NOT IN (SELECT id FROM settled))
  )
  SELECT coalesce(jsonb_agg(d), '[]'::jsonb) INTO deltas
  FROM call_deltas, jsonb_array_elements(call_deltas.ds) AS d;
  PERFORM openagent_apply_deltas(deltas);
  RETURN cardinality(fresh);
END $$;
`;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    description: 'policy, usage, append-only audit, budget counters and reservations, team memory',
    sql: (schema) => `${tables}\n${appendOnlyAudit}\n${budgetFunctions(schema)}`,
  },
  {
    version: 2,
    description: 'member directory and approval requests (named approvers)',
    sql: approvalSchemaSql,
  },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
