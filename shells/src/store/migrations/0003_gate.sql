-- The release gate and module health (ADR 0236, ADR 0240).

-- The newest statement each machine made of the health of what it runs, and per module how many
-- statements in a row said it unhealthy.
create table health_statements (
  machine   text        primary key,
  stated_at timestamptz not null,
  resources jsonb       not null,
  streaks   jsonb       not null default '{}',
  heard_at  timestamptz not null default now()
);

-- What is wrong, kept: raised, kept while it holds, cleared with who cleared it.
create table conditions (
  key        text        primary key,
  source     text        not null,
  scope      text        not null,
  subject_id text        not null,
  machine    text,
  also       jsonb       not null default '[]',
  kind       text        not null,
  severity   text        not null,
  summary    text        not null,
  resolver   text,
  raised_at  timestamptz not null,
  cleared_at timestamptz,
  cleared_by text
);
create index conditions_open on conditions (raised_at) where cleared_at is null;

-- Builds asked of the builder, newest kept per module, for a rollback to find the one to put back.
create table builds (
  build       text        primary key,
  module      text        not null,
  commit      text        not null,
  source      text,
  recorded_at timestamptz not null default now()
);

-- A release: one module's build, sent to its first machines, judged there by the gate.
create table plans (
  id       text        primary key,
  module   text        not null,
  build    text        not null,
  commit   text        not null,
  previous text        not null,
  previous_build text,
  machines jsonb       not null,
  rest     jsonb       not null default '[]',
  sent_at  timestamptz not null,
  state    text        not null default 'open' check (state in ('open', 'passed', 'failed')),
  gate     jsonb,
  note     text        not null default ''
);

-- A gate's verdict, once per build: a restarted controller, or a second one, finds it kept and does
-- not roll back again. The primary key is what says so, not any controller's memory.
create table gate_verdicts (
  build        text        primary key,
  module       text        not null,
  commit       text        not null,
  previous     text        not null,
  plan         text        not null,
  machines     jsonb       not null,
  verdict      text        not null,
  rollback     text,
  why          text        not null,
  component    text,
  judging_from timestamptz,
  recorded_at  timestamptz not null default now()
);
