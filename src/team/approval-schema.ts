/**
 * Migration 2 of the team schema (issue 37): the member directory and approval requests.
 *
 * The database, not the client, decides who may decide a request:
 * - `team_members` maps each member's e-mail to the PostgreSQL login they use, with their
 *   groups (`team:leads` names group `leads`); only the admin writes it;
 * - members never write `approval_requests` directly (no INSERT/UPDATE/DELETE grant): they call
 *   SECURITY DEFINER functions, and a trigger checks every change whoever makes it (the owner
 *   too): a new row is pending, made by the login it names; a decision is made by a login whose
 *   member is named (or in a named group), never by the requesting login or member, before the
 *   deadline; a row decided once never changes again; a timeout is recorded only once the
 *   database's own clock passes the deadline; only the requester withdraws. Concurrent decisions
 *   serialise on the row: exactly one finds it pending.
 * - every change is announced with NOTIFY on `openagent_approvals` (id and state only).
 */

/** The channel approvers and waiting agents LISTEN on. */
export const APPROVAL_CHANNEL = 'openagent_approvals';

export const APPROVAL_TABLES = ['team_members', 'approval_requests'];

export const APPROVAL_MEMBER_FUNCTIONS = [
  'openagent_request_approval(jsonb)',
  'openagent_decide_approval(text, boolean, text)',
  'openagent_withdraw_approval(text)',
  'openagent_expire_approvals()',
  'openagent_approver_of(text[], text)',
];

export const APPROVAL_INTERNAL_FUNCTIONS = [
  'openagent_approval_guard()',
  'openagent_approval_notify()',
  'openagent_requester_of(text, text)',
];

/** Longest texts kept: what the approver is shown, the conversation's last prompt, a reason. */
export const MAX_SHOWN_CHARS = 16_000;
export const MAX_PROMPT_CHARS = 4_000;
export const MAX_REASON_CHARS = 2_000;

export function approvalSchemaSql(schema: string): string {
  const definer = `SECURITY DEFINER SET search_path = ${schema}, pg_temp`;
  return `
CREATE TABLE team_members (
  email text PRIMARY KEY CHECK (email ~ '^[^[:space:]:@]+@[^[:space:]@]+$'),
  db_role text NOT NULL UNIQUE,
  groups text[] NOT NULL DEFAULT '{}',
  added_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE team_members ENABLE ROW LEVEL SECURITY;
CREATE POLICY team_members_read_all ON team_members FOR SELECT USING (true);

CREATE TABLE approval_requests (
  id text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 200),
  requester text NOT NULL,
  requester_role text NOT NULL,
  repository text,
  conversation_id text NOT NULL,
  agent_id text NOT NULL,
  tool text NOT NULL,
  arguments jsonb NOT NULL,
  shown text NOT NULL CHECK (length(shown) <= ${MAX_SHOWN_CHARS}),
  last_user_message text CHECK (length(last_user_message) <= ${MAX_PROMPT_CHARS}),
  matched text[] NOT NULL DEFAULT '{}',
  approvers text[] NOT NULL CHECK (cardinality(approvers) BETWEEN 1 AND 100),
  created_at timestamptz NOT NULL DEFAULT now(),
  deadline timestamptz NOT NULL,
  state text NOT NULL DEFAULT 'pending'
    CHECK (state IN ('pending', 'approved', 'denied', 'timed_out', 'withdrawn')),
  decided_by text,
  decided_role text,
  decided_at timestamptz,
  reason text CHECK (length(reason) <= ${MAX_REASON_CHARS})
);
CREATE INDEX approval_requests_pending_idx ON approval_requests (deadline) WHERE state = 'pending';
ALTER TABLE approval_requests ENABLE ROW LEVEL SECURITY;
CREATE POLICY approval_requests_read_all ON approval_requests FOR SELECT USING (true);

-- The member (e-mail) a login decides as, when that member is named or in a named group.
CREATE FUNCTION openagent_approver_of(p_approvers text[], p_role text) RETURNS text
    LANGUAGE sql STABLE ${definer} AS $$
  SELECT m.email FROM team_members m
  WHERE m.db_role = p_role
    AND (m.email = ANY (p_approvers)
      OR EXISTS (SELECT 1 FROM unnest(m.groups) g WHERE 'team:' || g = ANY (p_approvers)))
$$;

-- The member a login asks as: its own e-mail in the directory. A login outside the directory
-- may name itself anything but a member's e-mail (NULL: refused).
CREATE FUNCTION openagent_requester_of(p_role text, p_claimed text) RETURNS text
    LANGUAGE sql STABLE ${definer} AS $$
  SELECT coalesce(
    (SELECT m.email FROM team_members m WHERE m.db_role = p_role),
    CASE WHEN EXISTS (SELECT 1 FROM team_members m WHERE m.email = p_claimed) THEN NULL ELSE p_claimed END)
$$;

-- Checks every change of approval_requests, whoever makes it (see the file comment).
CREATE FUNCTION openagent_approval_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE approver text;
BEGIN
  IF TG_OP = 'DELETE' OR TG_OP = 'TRUNCATE' THEN
    RAISE EXCEPTION 'approval requests are kept: % is refused', TG_OP USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF TG_OP = 'INSERT' THEN
    IF NEW.state <> 'pending' OR NEW.decided_by IS NOT NULL OR NEW.decided_role IS NOT NULL
        OR NEW.decided_at IS NOT NULL OR NEW.reason IS NOT NULL THEN
      RAISE EXCEPTION 'a new approval request is pending and undecided' USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NEW.requester_role <> session_user THEN
      RAISE EXCEPTION 'an approval request is made by the login it names' USING ERRCODE = 'insufficient_privilege';
    END IF;
    -- Who asks is the login's member, never an e-mail the client claims: the approvers read it.
    IF NEW.requester IS DISTINCT FROM openagent_requester_of(session_user::text, NEW.requester) THEN
      RAISE EXCEPTION 'login % is not the member %', session_user, NEW.requester USING ERRCODE = 'insufficient_privilege';
    END IF;
    NEW.created_at := now();
    IF NEW.deadline <= now() OR NEW.deadline > now() + interval '1 day' THEN
      RAISE EXCEPTION 'the deadline is within a day from now' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
  END IF;
  IF OLD.state <> 'pending' THEN
    RAISE EXCEPTION 'approval request % was already decided (%)', OLD.id, OLD.state
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF (NEW.id, NEW.requester, NEW.requester_role, NEW.repository, NEW.conversation_id, NEW.agent_id, NEW.tool,
      NEW.arguments, NEW.shown, NEW.last_user_message, NEW.matched, NEW.approvers, NEW.created_at, NEW.deadline)
      IS DISTINCT FROM
     (OLD.id, OLD.requester, OLD.requester_role, OLD.repository, OLD.conversation_id, OLD.agent_id, OLD.tool,
      OLD.arguments, OLD.shown, OLD.last_user_message, OLD.matched, OLD.approvers, OLD.created_at, OLD.deadline) THEN
    RAISE EXCEPTION 'only the decision of an approval request changes' USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF NEW.state = 'timed_out' THEN
    IF now() < OLD.deadline THEN
      RAISE EXCEPTION 'approval request % has not reached its deadline', OLD.id USING ERRCODE = 'insufficient_privilege';
    END IF;
    NEW.decided_by := NULL;
    NEW.decided_role := NULL;
    NEW.decided_at := OLD.deadline;
    NEW.reason := NULL;
  ELSIF NEW.state = 'withdrawn' THEN
    IF session_user <> OLD.requester_role THEN
      RAISE EXCEPTION 'only the requester withdraws approval request %', OLD.id USING ERRCODE = 'insufficient_privilege';
    END IF;
    NEW.decided_by := OLD.requester;
    NEW.decided_role := session_user;
    NEW.decided_at := now();
  ELSIF NEW.state IN ('approved', 'denied') THEN
    IF now() >= OLD.deadline THEN
      RAISE EXCEPTION 'approval request % timed out', OLD.id USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF session_user = OLD.requester_role THEN
      RAISE EXCEPTION 'the requester cannot decide its own approval request %', OLD.id
        USING ERRCODE = 'insufficient_privilege';
    END IF;
    approver := openagent_approver_of(OLD.approvers, session_user::text);
    IF approver IS NULL THEN
      RAISE EXCEPTION 'login % is not a named approver of request % (named: %)', session_user, OLD.id,
        array_to_string(OLD.approvers, ', ') USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF approver = OLD.requester THEN
      RAISE EXCEPTION 'the requester cannot decide its own approval request %', OLD.id
        USING ERRCODE = 'insufficient_privilege';
    END IF;
    NEW.decided_by := approver;
    NEW.decided_role := session_user;
    NEW.decided_at := now();
  ELSE
    RAISE EXCEPTION 'approval request % cannot become %', OLD.id, NEW.state USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER approval_requests_guard BEFORE INSERT OR UPDATE OR DELETE ON approval_requests
  FOR EACH ROW EXECUTE FUNCTION openagent_approval_guard();
CREATE TRIGGER approval_requests_no_truncate BEFORE TRUNCATE ON approval_requests
  FOR EACH STATEMENT EXECUTE FUNCTION openagent_approval_guard();

CREATE FUNCTION openagent_approval_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('${APPROVAL_CHANNEL}', json_build_object('id', NEW.id, 'state', NEW.state)::text);
  RETURN NULL;
END $$;
CREATE TRIGGER approval_requests_notify AFTER INSERT OR UPDATE ON approval_requests
  FOR EACH ROW EXECUTE FUNCTION openagent_approval_notify();

-- Marks pending requests past their deadline (by the database's clock) timed out.
CREATE FUNCTION openagent_expire_approvals() RETURNS integer LANGUAGE plpgsql ${definer} AS $$
DECLARE expired integer;
BEGIN
  WITH due AS (
    SELECT id FROM approval_requests WHERE state = 'pending' AND deadline <= now()
    ORDER BY id COLLATE "C" LIMIT 500 FOR UPDATE SKIP LOCKED
  )
  UPDATE approval_requests r SET state = 'timed_out' FROM due WHERE r.id = due.id;
  GET DIAGNOSTICS expired = ROW_COUNT;
  RETURN expired;
END $$;

-- A new request from the calling login. p: {id, requester, repository, conversation_id, agent_id,
-- tool, arguments, shown, last_user_message, matched, approvers, timeout_ms}. The deadline is
-- the database's now() plus the timeout. Refused when no named approver can decide it (the
-- names are unknown, or the only one is the requester). Sent twice, it answers the first.
-- Returns {created, unknown: names that are no member or group}.
CREATE FUNCTION openagent_request_approval(p jsonb) RETURNS jsonb LANGUAGE plpgsql ${definer} AS $$
DECLARE
  names text[] := ARRAY(SELECT jsonb_array_elements_text(p->'approvers'));
  requester text := openagent_requester_of(session_user::text, p->>'requester');
  unknown text[];
  deciders integer;
  inserted integer;
BEGIN
  IF requester IS NULL THEN
    RAISE EXCEPTION 'login % is not the member %', session_user, p->>'requester' USING ERRCODE = 'insufficient_privilege';
  END IF;
  unknown := ARRAY(
    SELECT n FROM unnest(names) n
    WHERE NOT EXISTS (SELECT 1 FROM team_members m
      WHERE m.email = n OR (n LIKE 'team:%' AND substr(n, 6) = ANY (m.groups))));
  SELECT count(*) INTO deciders FROM team_members m
  WHERE m.db_role <> session_user AND m.email <> requester
    AND openagent_approver_of(names, m.db_role) IS NOT NULL;
  IF deciders = 0 THEN
    RAISE EXCEPTION 'no named approver can decide this request (named: %; unknown: %)',
      array_to_string(names, ', '), coalesce(nullif(array_to_string(unknown, ', '), ''), 'none')
      USING ERRCODE = 'no_data_found';
  END IF;
  INSERT INTO approval_requests (id, requester, requester_role, repository, conversation_id, agent_id, tool,
    arguments, shown, last_user_message, matched, approvers, deadline)
  VALUES (p->>'id', requester, session_user, p->>'repository', p->>'conversation_id', p->>'agent_id',
    p->>'tool', coalesce(p->'arguments', 'null'::jsonb), p->>'shown', p->>'last_user_message',
    ARRAY(SELECT jsonb_array_elements_text(coalesce(p->'matched', '[]'::jsonb))), names,
    now() + (p->>'timeout_ms')::bigint * interval '1 millisecond')
  ON CONFLICT (id) DO NOTHING;
  GET DIAGNOSTICS inserted = ROW_COUNT;
  IF inserted = 0 AND NOT EXISTS (SELECT 1 FROM approval_requests WHERE id = p->>'id' AND requester_role = session_user) THEN
    RAISE EXCEPTION 'approval request % exists already', p->>'id' USING ERRCODE = 'unique_violation';
  END IF;
  RETURN jsonb_build_object('created', inserted = 1, 'unknown', to_jsonb(unknown));
END $$;

-- One decision by the calling login. Returns {won}: false when another decision (or the
-- timeout, or a withdrawal) came first. The guard refuses a login that may not decide.
CREATE FUNCTION openagent_decide_approval(p_id text, p_approve boolean, p_reason text) RETURNS jsonb
    LANGUAGE plpgsql ${definer} AS $$
DECLARE changed integer;
BEGIN
  PERFORM openagent_expire_approvals();
  IF NOT EXISTS (SELECT 1 FROM approval_requests WHERE id = p_id) THEN
    RAISE EXCEPTION 'there is no approval request %', p_id USING ERRCODE = 'no_data_found';
  END IF;
  UPDATE approval_requests SET state = CASE WHEN p_approve THEN 'approved' ELSE 'denied' END,
    reason = nullif(left(p_reason, ${MAX_REASON_CHARS}), '')
  WHERE id = p_id AND state = 'pending';
  GET DIAGNOSTICS changed = ROW_COUNT;
  RETURN jsonb_build_object('won', changed = 1);
END $$;

-- The requester takes its request back (a Stop).
CREATE FUNCTION openagent_withdraw_approval(p_id text) RETURNS boolean LANGUAGE plpgsql ${definer} AS $$
DECLARE changed integer;
BEGIN
  UPDATE approval_requests SET state = 'withdrawn' WHERE id = p_id AND state = 'pending';
  GET DIAGNOSTICS changed = ROW_COUNT;
  RETURN changed = 1;
END $$;
`;
}
