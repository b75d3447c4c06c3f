-- Dates and timestamps map exactly unless values fall outside 0001..9999 (then text with a finding); TIME and
-- INTERVAL have no Spanner column type.
CREATE TABLE bookings (
  id int PRIMARY KEY,
  day date NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  local_at timestamp(3),
  open_from time,
  span interval,
  forever date
);
INSERT INTO bookings VALUES (1, '2024-02-29', '2024-02-29 10:00+02', '2024-02-29 10:00:00.123', '24:00', '1 mon', 'infinity');
