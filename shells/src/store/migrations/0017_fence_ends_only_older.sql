-- A newer epoch ends only the sessions still of an older epoch (migration 0014; found by the fence's
-- own test under load). The sessions holding the fence were read once, then ended one after another,
-- each waited for up to a second; a session that meanwhile finished its older epoch's transaction and
-- began one of the newest epoch was ended too, an act of the newest epoch lost for nothing. Each is now
-- read again, its snapshot let go, just before it is ended, and left alone unless it still says an older
-- epoch. What is left is the instant between that read and the end, which no SQL can close: a session
-- ended in it is of an epoch that had just begun, its transaction rolled back and tried again.
create or replace function mesh_fence_end_older(acting bigint) returns integer language plpgsql set search_path from current as $$
declare
  older record;
  still_older boolean;
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
    perform pg_stat_clear_snapshot();
    select substring(a.application_name from '^mesh_fence epoch ([0-9]{1,18})$')::bigint < acting
      into still_older
      from pg_stat_activity a
      where a.pid = older.pid;
    continue when still_older is not true;
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
