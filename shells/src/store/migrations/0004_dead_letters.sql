-- Messages a follower could not keep (issue 14), set aside with why so they are never in the way of
-- the messages beside them, and counted by status. Generic: any follower's kind (standings' words,
-- reports, health statements), its stream and subject. One row per stream message: a message set
-- aside, whose acknowledgement was lost, comes again and is not counted twice.
create table dead_letters (
  id              bigserial   primary key,
  kind            text        not null,
  stream          text        not null,
  subject         text        not null,
  stream_sequence bigint      not null,
  body            text        not null, -- clipped to 2,000 characters, NULs and lone surrogates as U+FFFD
  why             text        not null,
  at              timestamptz not null default now(),
  unique (kind, stream, stream_sequence)
);

create index dead_letters_at on dead_letters (kind, at);

-- A standing a person forgot (`mesh-controller standings forget`), kept like a word: who and when.
alter table standings drop constraint standings_state_check;
alter table standings add constraint standings_state_check check (state in ('failing', 'recovered', 'forgotten'));
alter table standings add column forgotten_by text;

-- The core's ordering of words as a key (core/src/standings/standings.ts, orderOf): the follower
-- keeps a word with one conditional upsert, `where excluded.word_order > standings.word_order`.
-- Compared as bytes ("C"), as the core's keys are made to be. Rows kept before this get the same
-- key the core would give them.
alter table standings add column word_order text collate "C";
update standings set word_order =
  lpad(((extract(epoch from said_at) * 1000)::bigint)::text, 16, '0') || ':' ||
  case state when 'failing' then '0' when 'recovered' then '1' else '2' end || ':' ||
  lpad(coalesce(attempts, 0)::text, 10, '0') || ':' ||
  left(encode(sha256(convert_to(coalesce(error, '') || chr(1) || coalesce(why, '') || chr(1) || coalesce(forgotten_by, ''), 'UTF8')), 'hex'), 16);
alter table standings alter column word_order set not null;
