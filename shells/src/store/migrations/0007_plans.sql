-- Release plans in tiers, ended only when every machine has what they decided (issue 9, seed 003).
-- `sending`: the last tier passed and the rest are sent until every machine has the build;
-- `rolling-back`: the rollback, saved before it is sent, is sent until it lands. Rows kept before
-- this read as one tier (the first machines, which the release had sent): the new columns are null.
alter table plans drop constraint if exists plans_state_check;
alter table plans add constraint plans_state_check check (state in ('open', 'sending', 'passed', 'rolling-back', 'failed'));

alter table plans
  add column if not exists tiers    jsonb,                      -- [["hq-3"], ["hq-4", "hq-5"]]
  add column if not exists tier     integer not null default 0, -- the tier sent or judged, from 0
  add column if not exists sent     jsonb,                      -- the machines sent the new build so far
  add column if not exists put_back jsonb,                      -- {build, commit, machines, sent}
  add column if not exists tries    integer not null default 0, -- sends in a row that did not reach every machine
  add column if not exists tried_at timestamptz;                -- when it last sent, or was about to (the retry policy)

-- The plans in flight, read on every tick of the gate and by every push (what they hold).
create index if not exists plans_in_flight on plans (module, sent_at) where state in ('open', 'sending', 'rolling-back');
