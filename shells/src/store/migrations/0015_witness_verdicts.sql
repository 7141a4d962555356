-- What each machine's witness says it decided of a core component it judged not healthy (seed 003's
-- witnessed, rules 003-4, 003-29, 003-33; issue 26): the newest verdict per machine and component,
-- kept by the controller's witness follower under the lease's fence. The gate judges with them (a
-- verdict since a send of that component fails its gate there) and its probe says each as the
-- condition core.<component>.<machine>.<outcome> while it holds.
create table witness_verdicts (
  machine    text        not null,
  component  text        not null,
  outcome    text        not null,
  -- The build the witness judged, and the one it put back ('' when it put none back).
  from_build text        not null,
  to_build   text        not null default '',
  why        text        not null,
  -- When the witness decided, as it said it.
  decided_at timestamptz not null,
  heard_at   timestamptz not null default now(),
  primary key (machine, component)
);
