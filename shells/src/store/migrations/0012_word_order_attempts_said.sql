-- The order key's digest says of attempts only whether it was said (core/src/standings/standings.ts,
-- textDigest). Its count is already in the key before the digest, so the digest only ever settles
-- words whose counts are equal; with the count in it, each retry's text was new, and the follower
-- hashed every word it kept (issue 11: a tenth of its time). Rows kept before get the key the core
-- now gives them, so every key in the table is compared on one rule.
update standings set word_order =
  lpad(((extract(epoch from said_at) * 1000)::bigint)::text, 16, '0') || ':' ||
  case state when 'failing' then '0' when 'recovered' then '1' else '2' end || ':' ||
  lpad(coalesce(attempts, 0)::text, 10, '0') || ':' ||
  left(encode(sha256(convert_to(concat_ws('|',
    coalesce(replace(replace(error, '\', '\\'), '|', '\|'), '\-'),
    coalesce(replace(replace(why, '\', '\\'), '|', '\|'), '\-'),
    coalesce(replace(replace(forgotten_by, '\', '\\'), '|', '\|'), '\-'),
    coalesce(replace(replace(class, '\', '\\'), '|', '\|'), '\-'),
    coalesce(replace(replace(consumer_node, '\', '\\'), '|', '\|'), '\-'),
    coalesce(replace(replace(since, '\', '\\'), '|', '\|'), '\-'),
    case when attempts is null then '\-' else '+' end
  ), 'UTF8')), 'hex'), 16);
