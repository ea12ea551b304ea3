import time

from django.core.management.base import BaseCommand, CommandError

from annotation.models import TrainedModel
from annotation.services import training
from annotation.services.errors import DomainError
from annotation.services.model_comparison import ENGINES
from annotation.tasks import submit_training

from ._helpers import ProgressBar, get_corpus


class Command(BaseCommand):
    help = (
        "Train a model from a corpus's confirmed layers (a Celery task on the training queue; in-process when no "
        "broker is configured), store it in the model registry and print its held-out metrics. "
        "--promote makes it the model the pre-annotation uses; a model worse than the one in use on ER_di or "
        "ER_qi (held-out documents) is promoted only with --reason."
    )

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--what", required=True, choices=TrainedModel.Kind.values)
        parser.add_argument("--promote", action="store_true", help="Use the new model for pre-annotation.")
        parser.add_argument(
            "--reason",
            default="",
            help="With --promote: why to use the new model even if it is worse than the one in use on ER_di or ER_qi.",
        )
        parser.add_argument("--no-wait", action="store_true", help="Queue the training and return.")
        parser.add_argument("--timeout", type=float, default=7200, help="Seconds to wait for the worker.")

    def handle(self, *args, corpus: str, what: str, promote: bool, no_wait: bool, timeout: float, **options):
        reason = options.get("reason") or ""
        if reason and not promote:
            raise CommandError("--reason goes with --promote (it is the reason to promote the new model).")
        target = get_corpus(corpus)
        try:
            model = submit_training(target, what, trigger="command")
        except DomainError as exc:
            raise CommandError(str(exc)) from None
        if no_wait:
            self.stdout.write(f"{model.label} queued (id {model.pk}).")
            return
        model = self._wait(model, timeout)
        if model.status != TrainedModel.Status.SUCCEEDED:
            raise CommandError(f"{model.label} failed: {model.error or model.get_status_display()}")
        self._report(model)
        if promote:
            self._promote(model, reason)

    def _promote(self, model: TrainedModel, reason: str) -> None:
        try:
            training.promote(model, actor=None, reason=reason)
        except DomainError as exc:
            kept = f"{model.label} stays in the registry, unused: promote it with --reason TEXT or on the models page"
            raise CommandError(f"{exc.message} ({kept}.)") from None
        self.stdout.write(f"{model.label} is now used for pre-annotation.")

    def _wait(self, model: TrainedModel, timeout: float) -> TrainedModel:
        bar = ProgressBar(self.stderr, f"Training {model.label}", 100, unit="%")
        deadline = time.monotonic() + timeout
        while True:
            model.refresh_from_db()
            bar.to(int(model.progress * 100), stage=model.stage)
            if model.finished or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        bar.close()
        if not model.finished:
            raise CommandError(f"{model.label} still {model.status} after {timeout:.0f} s; it goes on in the worker.")
        return model

    def _report(self, model: TrainedModel) -> None:
        metrics = model.metrics
        self.stdout.write(
            f"{model.label}: trained on {len(model.train_documents)} documents in {model.duration_s:.1f} s, "
            f"evaluated on {len(model.heldout_documents)} held-out documents"
        )
        for key in ("ER_di", "ER_qi", "WP", "token_recall", "token_precision", "entity_type_f1"):
            if isinstance(metrics.get(key), int | float):
                self.stdout.write(f"  {key:<16} {metrics[key]:.3f}")
        self._report_comparison(metrics.get("comparison") or {})

    def _report_comparison(self, comparison: dict) -> None:
        """The new model beside the engine in use and the zero-shot one (same documents)."""
        if not any(isinstance(comparison.get(name), dict) for name in ENGINES):
            why = comparison.get("skipped") or comparison.get("error") or "no comparison"
            self.stdout.write(f"  not compared: {why}")
            return
        self.stdout.write(f"  compared on {comparison.get('documents', 0)} held-out documents:")
        self.stdout.write(f"  {'':<16} " + " ".join(f"{name:>10}" for name in ENGINES))
        for key in ("ER_di", "ER_qi", "token_precision", "WP"):
            cells = [comparison.get(name, {}).get(key) for name in ENGINES]
            shown = [f"{value:>10.3f}" if isinstance(value, int | float) else f"{'—':>10}" for value in cells]
            self.stdout.write(f"  {key:<16} " + " ".join(shown))
