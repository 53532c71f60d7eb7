import ParleyLocal

typealias LocalEnginesOverrides = LocalEngines.Overrides
