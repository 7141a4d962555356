-- Delivery: the mesh's records, its machines and the sequence each was last allotted, what each was
-- last sent, what each last reported, and the controller's signing key.
create table mesh_records (
  id         integer     primary key default 1 check (id = 1),
  records    jsonb       not null,
  applied_at timestamptz not null default now()
);

create table nodes (
  name     text        primary key,
  sequence bigint      not null default 0,
  added_at timestamptz not null default now()
);

-- Written after the declaration went out, never before (novox/hq issue 204).
create table sent (
  node             text        primary key references nodes (name) on delete cascade,
  digest           text        not null,
  sequence         bigint      not null,
  builds           jsonb,
  bus_users_digest text,
  sent_at          timestamptz not null default now()
);

create table reports (
  node        text        primary key,
  digest      text        not null,
  sequence    bigint      not null,
  outcome     text        not null check (outcome in ('applied', 'failed', 'refused')),
  refused     text,
  failed      jsonb       not null default '[]',
  reported_at timestamptz not null,
  heard_at    timestamptz not null default now()
);

create table identity (
  id          integer     primary key default 1 check (id = 1),
  private_pem text        not null,
  public_pem  text        not null,
  created_at  timestamptz not null default now()
);
