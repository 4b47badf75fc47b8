"""The modules tests share (builds, oracles, generated logs, trainings), imported as tests.support.<module>."""
