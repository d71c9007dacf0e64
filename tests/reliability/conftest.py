"""Reliability tests run members in their own processes against the 3-node cluster; a failing
test attaches the members' logs to its report (they are in the test's tmp_path)."""
