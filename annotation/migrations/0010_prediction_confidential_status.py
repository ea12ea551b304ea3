"""The confidential status the engine proposes for each predicted entity (BELIEF,
POLITICS, SEX, ETHNIC, HEALTH or NOT_CONFIDENTIAL) and its reason, shown in the workspace
beside the identifier suggestion. Existing predictions get NOT_CONFIDENTIAL."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        # Written after 0009 (model promotion) in the same working tree; only a field on
        # Prediction, independent of it.
        ("annotation", "0009_model_promotion_reason"),
    ]

    operations = [
        migrations.AddField(
            model_name="prediction",
            name="confidential_status",
            field=models.CharField(
                choices=[
                    ("NOT_CONFIDENTIAL", "Not confidential"),
                    ("BELIEF", "Religious or philosophical belief"),
                    ("POLITICS", "Political opinion or union membership"),
                    ("SEX", "Sexual orientation or sex life"),
                    ("ETHNIC", "Racial or ethnic origin"),
                    ("HEALTH", "Health, genetic or biometric data"),
                ],
                default="NOT_CONFIDENTIAL",
                max_length=20,
            ),
        ),
        migrations.AddField(
            model_name="prediction",
            name="confidential_reason",
            field=models.CharField(blank=True, max_length=300),
        ),
        migrations.AddConstraint(
            model_name="prediction",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("confidential_status__in", ["NOT_CONFIDENTIAL", "BELIEF", "POLITICS", "SEX", "ETHNIC", "HEALTH"])
                ),
                name="prediction_confidential_status_valid",
            ),
        ),
    ]
