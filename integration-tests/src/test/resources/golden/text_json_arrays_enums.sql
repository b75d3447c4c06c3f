-- Strings, bytes, uuid, json, arrays, an enum and a domain with a check.
CREATE TYPE mood AS ENUM ('happy', 'it''s ok', 'sad');
CREATE DOMAIN percentage AS numeric(5,2) CHECK (VALUE >= 0 AND VALUE <= 100);
CREATE TABLE profiles (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  handle varchar(30) NOT NULL,
  code char(4),
  bio text DEFAULT '',
  avatar bytea,
  settings jsonb NOT NULL DEFAULT '{}',
  raw json,
  tags text[],
  scores int[],
  feeling mood,
  done percentage,
  active boolean NOT NULL DEFAULT true
);
