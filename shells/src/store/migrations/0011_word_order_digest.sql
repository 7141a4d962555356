-- The order key's digest over everything a standing keeps (core/src/standings/standings.ts,
-- textDigest). It was over the error, the why and who forgot it: two words of one millisecond, one
-- state and one count of attempts that differed only in class (or node, since, or whether attempts
-- was said) tied, and whichever arrived last was kept. Each field is escaped (`\` and `|`), an
-- absent one is `\-`, and they are joined by `|`, in the core's order; rows kept before get the key
-- the core now gives them, so every key in the table is compared on one rule.
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
    coalesce(attempts::text, '\-')
  ), 'UTF8')), 'hex'), 16);
