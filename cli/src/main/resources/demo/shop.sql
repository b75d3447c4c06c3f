-- pg2spanner demo: a small shop whose schema has the key shapes that hotspot on Spanner, and some that do not.
-- Deterministic: the same rows every run.
SELECT setseed(0.42);

-- Natural key, low write rate: fine to keep.
CREATE TABLE tenants (
  tenant_code text PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- bigserial key: every insert lands on the last split.
CREATE TABLE customers (
  id          bigserial PRIMARY KEY,
  tenant_code text NOT NULL REFERENCES tenants,
  email       text NOT NULL,
  full_name   text,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX customers_email_key ON customers (email);
CREATE INDEX customers_created_at_idx ON customers (created_at);   -- monotonic secondary index

-- Identity key.
CREATE TABLE orders (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  customer_id bigint NOT NULL REFERENCES customers,
  placed_at   timestamptz NOT NULL DEFAULT now(),
  status      text NOT NULL CHECK (status IN ('new', 'paid', 'shipped', 'cancelled')),
  total       numeric(12,2) NOT NULL,
  details     jsonb
);
CREATE INDEX orders_customer_idx ON orders (customer_id);

-- Child whose key leads with its parent's key: an interleaving candidate.
CREATE TABLE order_items (
  order_id    bigint NOT NULL REFERENCES orders ON DELETE CASCADE,
  line_no     integer NOT NULL,
  sku         text NOT NULL,
  quantity    integer NOT NULL CHECK (quantity > 0),
  unit_price  numeric(10,2) NOT NULL,
  PRIMARY KEY (order_id, line_no)
);

-- Timestamp-first key.
CREATE TABLE events (
  occurred_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  source      text NOT NULL,
  payload     jsonb,
  PRIMARY KEY (occurred_at, source)
);

-- Random UUID (v4) key: already distributed, must not be flagged.
CREATE TABLE sessions (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  customer_id bigint REFERENCES customers,
  started_at  timestamptz NOT NULL,
  user_agent  text
);

-- No primary key at all.
CREATE TABLE page_views (
  customer_id bigint,
  url         text NOT NULL,
  viewed_at   timestamptz NOT NULL
);

-- One sequence, not OWNED BY anyone, shared by two tables.
CREATE SEQUENCE document_number_seq;
CREATE TABLE invoices (
  id          bigint PRIMARY KEY DEFAULT nextval('document_number_seq'),
  order_id    bigint NOT NULL REFERENCES orders,
  issued_on   date NOT NULL,
  amount      numeric(12,2) NOT NULL
);
CREATE TABLE credit_notes (
  id          bigint PRIMARY KEY DEFAULT nextval('document_number_seq'),
  invoice_id  bigint NOT NULL REFERENCES invoices,
  amount      numeric(12,2) NOT NULL
);

INSERT INTO tenants (tenant_code, name, created_at)
SELECT 't' || lpad(g::text, 3, '0'), 'Tenant ' || g, timestamptz '2020-01-01' + g * interval '3 days'
FROM generate_series(1, 20) g;

INSERT INTO customers (tenant_code, email, full_name, created_at)
SELECT 't' || lpad((1 + g % 20)::text, 3, '0'), 'customer' || g || '@example.com',
       CASE WHEN g % 17 = 0 THEN NULL ELSE 'Customer ' || g END,
       timestamptz '2021-01-01' + g * interval '7 minutes'
FROM generate_series(1, 5000) g;

INSERT INTO orders (customer_id, placed_at, status, total, details)
SELECT 1 + (g * 7919) % 5000, timestamptz '2022-01-01' + g * interval '90 seconds',
       (ARRAY['new', 'paid', 'shipped', 'cancelled'])[1 + g % 4], round((random() * 500)::numeric, 2),
       CASE WHEN g % 5 = 0 THEN NULL ELSE jsonb_build_object('channel', (ARRAY['web', 'app', 'store'])[1 + g % 3], 'gift', g % 11 = 0) END
FROM generate_series(1, 20000) g;

INSERT INTO order_items (order_id, line_no, sku, quantity, unit_price)
SELECT o, l, 'SKU-' || ((o * 31 + l) % 997), 1 + (o + l) % 4, round((1 + random() * 99)::numeric, 2)
FROM generate_series(1, 20000) o, generate_series(1, 1 + o % 4) l;

INSERT INTO events (occurred_at, source, payload)
SELECT timestamptz '2023-06-01' + g * interval '1 second', (ARRAY['api', 'worker', 'cron'])[1 + g % 3],
       jsonb_build_object('seq', g)
FROM generate_series(1, 10000) g;

INSERT INTO sessions (customer_id, started_at, user_agent)
SELECT 1 + g % 5000, timestamptz '2023-01-01' + g * interval '5 minutes',
       CASE WHEN g % 3 = 0 THEN NULL ELSE 'Mozilla/5.0 (demo ' || g || ')' END
FROM generate_series(1, 5000) g;

INSERT INTO page_views (customer_id, url, viewed_at)
SELECT CASE WHEN g % 10 = 0 THEN NULL ELSE 1 + g % 5000 END, '/products/' || (g % 300),
       timestamptz '2023-01-01' + g * interval '13 seconds'
FROM generate_series(1, 10000) g;

INSERT INTO invoices (order_id, issued_on, amount)
SELECT g * 10, date '2022-01-01' + (g / 10), round((random() * 500)::numeric, 2)
FROM generate_series(1, 2000) g;

INSERT INTO credit_notes (invoice_id, amount)
SELECT (SELECT min(id) FROM invoices) + g * 10, round((random() * 50)::numeric, 2)
FROM generate_series(0, 199) g;

ANALYZE;
