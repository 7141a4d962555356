-- What operators do to a plan and what its gate judged (issue 10): paused (by whom, when, why) and
-- for how long, a dry run, measurement errors in a row, and the bounded judging history
-- (core/src/gate/history.ts). Rows kept before read as not paused, not a dry run, no errors, no history.
alter table plans
  add column if not exists paused     jsonb,                          -- {by, at, why}
  add column if not exists paused_for double precision,               -- ms the current tier's gate was paused
  add column if not exists dry_run    boolean not null default false,
  add column if not exists errors     integer not null default 0,     -- judgings in a row that could not ask
  add column if not exists history    jsonb;                          -- {first, newest, dropped}
