"""Where a run's units execute when not in the driver's event loop: Ray actors.

``Session(executor=RayExecutor())`` or ``promptum run --executor ray``; see docs/scale.md.
Ray itself is an optional extra (``pip install 'promptum[ray]'``), imported when a run starts.
"""

from promptum.executors._ray import RayExecutor, quiet_local_ray

__all__ = ["RayExecutor", "quiet_local_ray"]
