-- Reserved words, mixed case, spaces, accents and a case-only clash.
CREATE TABLE "Order" ("select" int PRIMARY KEY, "from" text, "Unit Price" numeric(8,2), "café" text);
CREATE TABLE "order_Item" (id int PRIMARY KEY);
CREATE TABLE "ORDER_ITEM" (id int PRIMARY KEY);
-- Columns named as GoogleSQL writes typed literals (DATE '...', NUMERIC '...'): their CHECKs, defaults and generated
-- columns are written in both dialects (the PostgreSQL dialect's respeller had refused them).
CREATE TABLE stamped (id int PRIMARY KEY, date date DEFAULT '2000-01-01' CHECK (date > '1999-12-31'::date),
  numeric numeric(10,2) CHECK (numeric >= 0), json jsonb, "timestamp" timestamptz,
  doubled numeric(12,2) GENERATED ALWAYS AS (numeric * 2) STORED);
