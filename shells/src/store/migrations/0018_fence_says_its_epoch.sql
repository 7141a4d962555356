-- The fence says each fenced transaction's epoch where only the store's commit order can tell it
-- (issue 27). "At most one epoch acting at any instant" was checked from what the controllers said of
-- themselves and the fence's newest epoch alone, neither of which shows a write of an older epoch
-- committed after a newer one's. A store set to keep a witness (`mesh.fence_witness = on`, as the
-- fault soak sets its own database) now writes the acting epoch into each fenced transaction's WAL as
-- a transactional logical message: it is decoded only if that transaction commits, in commit order,
-- so a reader of a logical slot sees the epochs of every committed fenced write as they landed. Off,
-- as every store is unless told, it costs one setting read per transaction.
--
-- As in 0014, otherwise unchanged.
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
  if current_setting('mesh.fence_witness', true) = 'on' then
    perform pg_logical_emit_message(true, 'mesh_fence', acting::text);
  end if;
  return newest;
end
$$;
