-- Where a follower is in its stream, kept in the transaction that keeps what it read (issue 11): the
-- standings follower reads its stream from this position with a consumer that asks for no
-- acknowledgement, instead of a durable consumer acknowledged a message at a time. Written only
-- under the lease's fence, like everything the follower keeps.
create table stream_positions (
  stream     text        not null,
  follower   text        not null,
  seq        bigint      not null,
  kept_at    timestamptz not null default now(),
  primary key (stream, follower)
);
