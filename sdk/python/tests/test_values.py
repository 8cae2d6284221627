"""Outcome values are written as JSON numbers from their exact digits."""

import _local  # noqa: F401  (first: this checkout's tally package)
import json
import unittest
from datetime import datetime, timedelta, timezone
from decimal import Decimal

from tally.events import encode_event, iso_timestamp, value_text


class ValueTextTest(unittest.TestCase):
    def test_exact_digits(self):
        for value, text in [
            (Decimal("123456789012345678.123456789"), "123456789012345678.123456789"),
            ("123456789012345678.123456789", "123456789012345678.123456789"),
            (999999999999999999, "999999999999999999"),
            (10**18, "1000000000000000000"),
            (0, "0"),
            (Decimal("0"), "0"),
            ("0", "0"),
            (Decimal("1.50"), "1.50"),
            (Decimal("1E+3"), "1000"),
            ("1.5e3", "1500"),
            ("1e-7", "0.0000001"),
            (Decimal("0.000000001"), "0.000000001"),
        ]:
            with self.subTest(value=value):
                self.assertEqual(value_text(value), text)
                # Parsed as a Decimal, the JSON number keeps every digit.
                self.assertEqual(json.loads(text, parse_float=Decimal, parse_int=Decimal), Decimal(str(value)))

    def test_float_is_its_shortest_repr(self):
        self.assertEqual(value_text(0.1), "0.1")
        self.assertEqual(value_text(2.5), "2.5")
        self.assertEqual(value_text(1e20), "100000000000000000000")
        # A float cannot hold these digits: it is sent as what it holds, shortest form.
        self.assertEqual(value_text(123456789.123456789), "123456789.12345679")

    def test_huge_exponents_stay_compact_and_exact(self):
        self.assertEqual(value_text(Decimal("1E+99")), "1E+99")
        self.assertEqual(value_text("1e-50"), "1E-50")
        self.assertEqual(json.loads(value_text(Decimal("1E+99")), parse_float=Decimal), Decimal("1E+99"))

    def test_refuses_non_finite_and_non_numbers(self):
        for value in (float("nan"), float("inf"), float("-inf"), Decimal("NaN"), Decimal("Infinity"), Decimal("sNaN"), "NaN", "1,5", " 1", "1_000", "", "0x10", ".5"):
            with self.subTest(value=value), self.assertRaises(ValueError):
                value_text(value)
        for value in (True, False, None, [1], b"1"):
            with self.subTest(value=value), self.assertRaises(TypeError):
                value_text(value)


class EncodeEventTest(unittest.TestCase):
    def test_value_is_a_json_number_spliced_in(self):
        text = encode_event({"outcome_type": "won", "id": "e1"}, "123456789012345678.123456789")
        self.assertIn('"value":123456789012345678.123456789', text)
        self.assertEqual(json.loads(text, parse_float=Decimal), {"outcome_type": "won", "id": "e1", "value": Decimal("123456789012345678.123456789")})
        self.assertEqual(encode_event({}, "0"), '{"value":0}')

    def test_metadata(self):
        self.assertEqual(json.loads(encode_event({"metadata": {"cost": Decimal("0.25")}}, None)), {"metadata": {"cost": "0.25"}})
        with self.assertRaises(ValueError):
            encode_event({"metadata": {"x": float("nan")}}, None)
        with self.assertRaises(TypeError):
            encode_event({"metadata": {"x": object()}}, None)


class TimestampTest(unittest.TestCase):
    def test_iso_utc_millis(self):
        self.assertEqual(iso_timestamp(datetime(2026, 11, 21, 10, 0, 0, 123456, tzinfo=timezone.utc)), "2026-11-21T10:00:00.123Z")
        self.assertEqual(iso_timestamp(datetime(2026, 11, 21, 12, 0, tzinfo=timezone(timedelta(hours=2)))), "2026-11-21T10:00:00.000Z")
        self.assertEqual(iso_timestamp(datetime(2026, 11, 21, 10, 0)), "2026-11-21T10:00:00.000Z")
        self.assertEqual(iso_timestamp("2026-11-21T10:00:00Z"), "2026-11-21T10:00:00Z")
        self.assertRegex(iso_timestamp(None), r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
        with self.assertRaises(TypeError):
            iso_timestamp(1700000000)


if __name__ == "__main__":
    unittest.main()
