"""Who promoted a trained model, and the written reason when the promotion overrode a
drop against the model in use (ER_di or ER_qi on the same held-out documents)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0008_layer_withdrawn"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="trainedmodel",
            name="promoted_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="trainedmodel",
            name="promotion_reason",
            field=models.TextField(blank=True),
        ),
    ]
