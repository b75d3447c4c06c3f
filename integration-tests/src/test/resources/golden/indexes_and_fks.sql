-- Index translation: unique over nullable columns, IS NOT NULL partial, INCLUDE, DESC, other partials, GIN and
-- expression indexes; foreign-key actions.
CREATE TABLE teams (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE members (
  id int PRIMARY KEY,
  team_id int REFERENCES teams ON DELETE SET NULL,
  email text,
  nickname text,
  rank int NOT NULL,
  tags text[],
  deleted_at timestamptz,
  CONSTRAINT rank_positive CHECK (rank > 0),
  CONSTRAINT email_has_at CHECK (email LIKE '%@%')
);
CREATE UNIQUE INDEX members_email_key ON members (email);
CREATE INDEX members_nick_idx ON members (nickname) WHERE nickname IS NOT NULL;
CREATE INDEX members_rank_idx ON members (rank DESC) INCLUDE (nickname, id);
CREATE INDEX members_live_idx ON members (team_id) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX members_live_nick ON members (nickname) WHERE deleted_at IS NULL;
CREATE INDEX members_tags_gin ON members USING gin (tags);
CREATE INDEX members_lower_email ON members (lower(email));
CREATE TABLE assignments (member_id int NOT NULL REFERENCES members ON DELETE CASCADE,
  team_id int NOT NULL REFERENCES teams ON DELETE RESTRICT, PRIMARY KEY (team_id, member_id));
