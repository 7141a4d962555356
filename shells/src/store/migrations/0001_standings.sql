-- The newest word each provider said about each consumer (novox/hq ADR 0224, migration 0065 in the
-- seed). A recovered word is kept too, as a cleared standing, so an older failing word delivered
-- late cannot bring it back.
create table standings (
  provider      text        not null,
  provider_node text        not null,
  consumer      text        not null,
  state         text        not null check (state in ('failing', 'recovered')),
  said_at       timestamptz not null,
  consumer_node text,
  class         text,
  error         text,
  since         text,
  attempts      integer,
  why           text,
  heard_at      timestamptz not null default now(),
  primary key (provider, provider_node, consumer)
);

create index standings_failing on standings (provider, provider_node, consumer) where state = 'failing';
