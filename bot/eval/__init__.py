"""`approvals-bot eval`: the agent's scenario suite, run against whatever model is configured.

Each scenario runs on a fresh in-process engine (the demo organisation at a fixed clock) and
passes on the engine's state and the proposals made, never on the wording of the replies.
"""

from bot.eval.runner import ScenarioResult, run_eval, run_scenario, run_suite
from bot.eval.scenarios import SCENARIOS
from bot.eval.spec import Scenario, Turn

__all__ = [
    "SCENARIOS",
    "Scenario",
    "ScenarioResult",
    "Turn",
    "run_eval",
    "run_scenario",
    "run_suite",
]
