from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("agentmemory_server", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="memoryblock",
            name="sentence_embeddings",
            field=models.BinaryField(blank=True, null=True),
        ),
    ]
