-- A serial parent (bit-reversed), a child keyed by the parent's key (interleaved, column renamed to the parent's
-- name), a grandchild, and a table with no primary key (synthetic key).
CREATE TABLE authors (id bigserial PRIMARY KEY, name text NOT NULL);
CREATE TABLE books (author_id bigint NOT NULL REFERENCES authors ON DELETE CASCADE, book_no int NOT NULL,
  title text NOT NULL, PRIMARY KEY (author_id, book_no));
CREATE TABLE chapters (author_id bigint NOT NULL, book_no int NOT NULL, chapter_no int NOT NULL, words int,
  PRIMARY KEY (author_id, book_no, chapter_no), FOREIGN KEY (author_id, book_no) REFERENCES books);
CREATE TABLE audit_log (at timestamptz NOT NULL, message text);
INSERT INTO authors (name) SELECT 'a' || g FROM generate_series(1, 300) g;
