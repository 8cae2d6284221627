import _local  # noqa: F401  (first: this checkout's tally package)
import unittest
from email.utils import formatdate

from tally import BackoffOptions, BoundedBuffer, backoff_delay, parse_retry_after, retry_delay

OPTS = BackoffOptions(base_ms=500, max_ms=30_000)


class BackoffTest(unittest.TestCase):
    def test_exponential_with_equal_jitter(self):
        for attempt, lo, hi in [(0, 250, 500), (1, 500, 1000), (2, 1000, 2000), (3, 2000, 4000), (10, 15_000, 30_000)]:
            with self.subTest(attempt=attempt):
                self.assertEqual(backoff_delay(attempt, OPTS, lambda: 0), lo)
                self.assertEqual(backoff_delay(attempt, OPTS, lambda: 1), hi)
                for _ in range(50):
                    self.assertTrue(lo <= backoff_delay(attempt, OPTS) <= hi)

    def test_jitters(self):
        self.assertGreater(len({backoff_delay(3, OPTS) for _ in range(20)}), 1)

    def test_retry_after(self):
        now = 1_000.0
        for value, ms in [
            ("2", 2000), ("0", 0), ("1.5", 1500), (" 7 ", 7000),
            (formatdate(now + 3, usegmt=True), 3000), (formatdate(now - 3, usegmt=True), 0),
            ("soon", None), ("", None), (None, None),
        ]:
            with self.subTest(value=value):
                self.assertEqual(parse_retry_after(value, now), ms)

    def test_prefers_retry_after_capped(self):
        self.assertEqual(retry_delay(0, 4000, OPTS), 4000)
        self.assertEqual(retry_delay(0, 120_000, OPTS), 30_000)
        self.assertEqual(retry_delay(2, None, OPTS, lambda: 1), 2000)


class BoundedBufferTest(unittest.TestCase):
    def test_drops_oldest(self):
        b = BoundedBuffer(3)
        self.assertEqual([d for n in (1, 2, 3) for d in b.push(n)], [])
        self.assertEqual(b.push(4), [1])
        self.assertEqual(b.take(10), [2, 3, 4])

    def test_unshift_in_front_dropping_oldest(self):
        b = BoundedBuffer(4)
        b.push(5)
        b.push(6)
        self.assertEqual(b.unshift([1, 2, 3]), [1])
        self.assertEqual(b.take(2), [2, 3])
        self.assertEqual(b.take(5), [5, 6])
        self.assertEqual(len(b), 0)

    def test_refuses_bad_capacity(self):
        for c in (0, 1.5, True, "3"):
            with self.subTest(capacity=c), self.assertRaises(ValueError):
                BoundedBuffer(c)


if __name__ == "__main__":
    unittest.main()
