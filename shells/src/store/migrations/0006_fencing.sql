-- The controller lease's epoch as the store sees it (seed 004, novox/hq to-be 45 §6; issue 13), and
-- what each build reads of this schema (novox/hq issue 352).

-- The newest epoch any write has carried: one row. A controller paused past its lease (a long GC,
-- SIGSTOP) wakes still believing it holds epoch N while N+1 acts; the lease alone cannot stop its
-- write already on the way, so the store refuses it here.
create table lease_fence (
  one        boolean     primary key default true check (one),
  epoch      bigint      not null check (epoch >= 0),
  seen_at    timestamptz not null default now()
);
insert into lease_fence (one, epoch) values (true, 0);

-- Called first in every transaction that changes something, with the epoch the act carries.
--
-- An epoch newer than the newest is recorded first, under the row's lock: it waits for every
-- transaction of an older epoch still open (each holds the row shared), and once it commits those
-- that come after read the new epoch and are refused. So in commit order the epochs never
-- interleave. Updating before reading (not reading shared and then updating) keeps two
-- transactions of one new epoch from each holding the row shared and waiting on the other.
--
-- Its search path is the schema it was made in, whoever calls it.
-- Refused with its own SQLSTATE (MF409), the epochs in the detail as JSON, so the shell tells a
-- fenced write from any other failure without reading the message's words.
create function mesh_fence(acting bigint) returns bigint language plpgsql set search_path from current as $$
declare
  newest bigint;
begin
  if acting is null or acting < 1 then
    raise exception 'a write must carry the controller lease''s epoch (a whole number from 1), not %', acting
      using errcode = '22023';
  end if;
  update lease_fence set epoch = acting, seen_at = now() where one and epoch < acting;
  select epoch into newest from lease_fence where one for share;
  if newest > acting then
    raise exception 'a write under epoch % is refused: the store has seen epoch %', acting, newest
      using errcode = 'MF409', detail = json_build_object('acting', acting, 'newest', newest)::text;
  end if;
  return newest;
end
$$;

-- Which migration each build reads the store up to, recorded by `serve` at start (issue 352): a gate
-- puts back only a build that can read the store as it is then.
create table schema_reach (
  build       text        primary key,
  reach       integer     not null check (reach >= 0),
  recorded_at timestamptz not null default now()
);
