-- The new holder ends the older epoch's sessions (issue 26; seed 004). Found live: a holder paused
-- (SIGSTOP) while its transaction was open held `lease_fence`'s row shared; the new holder's first
-- write, recording its newer epoch under the row's lock, waited behind it for 2 min 14 s, and on
-- resume the old epoch's transaction committed after the takeover. From here a transaction of a newer
-- epoch ends the sessions of older epochs still holding the fence before it takes the row: their
-- transactions are rolled back with their sessions, so none of them can commit after the takeover.
--
-- Each fenced transaction says its epoch in its session's `application_name` (`mesh_fence epoch N`,
-- set for the transaction alone, so it is gone when the transaction ends), the one thing about a
-- session every other session can read. Which sessions hold the fence is read from `pg_locks`: a
-- transaction that called `mesh_fence` holds the table locked until it ends.
--
-- Ending another session takes `pg_terminate_backend`'s privilege: the controllers connecting as one
-- role have it over each other's sessions; otherwise membership of `pg_signal_backend` (a superuser's
-- sessions only a superuser may end). Without it, a session that cannot be ended is waited for, as
-- before, and the bounds each controller sets on its own sessions (lease/store-bounds.ts) end it.

-- The sessions of epochs older than `acting` holding the fence, ended; answers how many could not be.
create function mesh_fence_end_older(acting bigint) returns integer language plpgsql set search_path from current as $$
declare
  older record;
  left_open integer := 0;
begin
  -- What other sessions say of themselves is read once a transaction unless the snapshot is let go.
  perform pg_stat_clear_snapshot();
  for older in
    select distinct l.pid
    from pg_locks l
    join pg_stat_activity a on a.pid = l.pid
    where l.locktype = 'relation'
      and l.database = (select oid from pg_database where datname = current_database())
      and l.relation = 'lease_fence'::regclass
      and l.granted
      and l.pid <> pg_backend_pid()
      and substring(a.application_name from '^mesh_fence epoch ([0-9]{1,18})$')::bigint < acting
  loop
    begin
      -- Waits up to a second for the session to be gone, its locks with it.
      if not pg_terminate_backend(older.pid, 1000) then
        left_open := left_open + 1;
      end if;
    exception when insufficient_privilege then
      left_open := left_open + 1;
    end;
  end loop;
  return left_open;
end
$$;

-- As in 0006, called first in every transaction that changes something, with the epoch the act
-- carries: an older epoch is refused (MF409, the epochs in the detail as JSON); a newer one is
-- recorded under the row's lock, so in commit order the epochs never interleave. What changes is how
-- a newer epoch gets the row: it ends the older epochs' sessions still holding it, then takes it with
-- a short wait, and looks again if an older session took it in between. A session it could not end is
-- waited for under this session's own `lock_timeout`.
create or replace function mesh_fence(acting bigint) returns bigint language plpgsql set search_path from current as $$
declare
  newest bigint;
  prior_lock_timeout text;
  left_open integer;
begin
  if acting is null or acting < 1 then
    raise exception 'a write must carry the controller lease''s epoch (a whole number from 1), not %', acting
      using errcode = '22023';
  end if;
  perform set_config('application_name', 'mesh_fence epoch ' || acting, true);
  if exists (select 1 from lease_fence where one and epoch < acting) then
    prior_lock_timeout := current_setting('lock_timeout');
    loop
      left_open := mesh_fence_end_older(acting);
      perform set_config('lock_timeout', case when left_open = 0 then '100ms' else prior_lock_timeout end, true);
      begin
        update lease_fence set epoch = acting, seen_at = now() where one and epoch < acting;
        exit;
      exception when lock_not_available then
        -- Another older session took the row after the look, or one of this epoch holds it: look again.
        null;
      end;
    end loop;
    perform set_config('lock_timeout', prior_lock_timeout, true);
  end if;
  select epoch into newest from lease_fence where one for share;
  if newest > acting then
    raise exception 'a write under epoch % is refused: the store has seen epoch %', acting, newest
      using errcode = 'MF409', detail = json_build_object('acting', acting, 'newest', newest)::text;
  end if;
  return newest;
end
$$;
